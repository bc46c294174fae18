# Shared by scripts/start, scripts/test and scripts/cluster.sh: the pinned Bun, dependencies from
# the lockfile, and Debian's packages.
BUN_VERSION="1.4.5"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Uses bun from PATH when it is the pinned version; otherwise installs that version from the
# npm registry's `bun` package into .tools/ (no download from anywhere else).
ensure_bun() {
  if command -v bun >/dev/null 2>&1 && [ "$(bun --version 2>/dev/null)" = "$BUN_VERSION" ]; then
    return
  fi
  local tools="$ROOT/.tools"
  if [ ! -x "$tools/node_modules/.bin/bun" ] || [ "$("$tools/node_modules/.bin/bun" --version 2>/dev/null)" != "$BUN_VERSION" ]; then
    echo "Installing Bun $BUN_VERSION from the npm registry..."
    mkdir -p "$tools"
    # --prefer-offline: what npm's cache holds is used without asking the registry again (it has
    # been slow to answer here, for minutes at a time).
    npm install --prefix "$tools" --no-save --no-audit --no-fund --prefer-offline --loglevel=error \
      "bun@$BUN_VERSION" >&2
  fi
  export PATH="$tools/node_modules/.bin:$PATH"
  if [ "$(bun --version 2>/dev/null)" != "$BUN_VERSION" ]; then
    echo "Could not install Bun $BUN_VERSION; see the output above." >&2
    exit 1
  fi
}

ensure_dependencies() {
  (cd "$ROOT" && bun install --frozen-lockfile)
}

# Installs Debian's packages (root or sudo); what apt prints goes nowhere, its errors to stderr.
apt_install() {
  local sudo=""
  [ "$(id -u)" = "0" ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null &&
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
