# Throwaway PostgreSQL and Redis servers for tests and benchmarks: `CLUSTER=1 ./scripts/test` and
# `bun run bench discover-pg` use them through `scripts/cluster`. Each lives in a folder of its
# own on free ports of 127.0.0.1, never as a system service, and is stopped by the process id it
# started with. Sourced by scripts/cluster; needs Debian's postgresql and redis-server packages.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Installs Debian's postgresql, redis-server and nginx (the browser suite's load balancer) when
# they are missing (root or sudo).
ensure_cluster_packages() {
  local missing=()
  [ -n "$(pg_bin_dir)" ] || missing+=(postgresql)
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
  [ "${#missing[@]}" -eq 0 ] && return
  echo "Installing ${missing[*]} from Debian's packages..." >&2
  apt_install --no-install-recommends "${missing[@]}"
  # The packages start system services of their own; ours are separate, on other ports.
}

# The newest installed PostgreSQL's bin folder (15 or later), or nothing.
pg_bin_dir() {
  local dir version
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    version="$(basename "$(dirname "$dir")")"
    if [ "${version%%.*}" -ge 15 ] && [ -x "$dir/initdb" ]; then
      echo "$dir"
      return
    fi
  done
}

# A TCP port on 127.0.0.1 that nothing listens on now, below Linux's ephemeral range (32768 and
# up), where the kernel hands out the local ports of outgoing connections and of servers on port 0
# (a Redis once failed to start on a port such a socket had taken).
free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((12000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
  return 1
}

# Runs a PostgreSQL program as the owner of the data folder: root may not run them.
as_pg_owner() {
  if [ "$(id -u)" = "0" ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# start_cluster DIR: starts both servers with their files in DIR; prints their URLs as
# CLUSTER_DB_URL=... and CLUSTER_REDIS_URL=... lines.
start_cluster() {
  local dir="$1" bin
  bin="$(pg_bin_dir)"
  [ -n "$bin" ] || { echo "PostgreSQL 15 or later is not installed" >&2; return 1; }
  mkdir -p "$dir/pg"
  chmod 755 "$dir"
  if [ "$(id -u)" = "0" ]; then
    chown postgres "$dir/pg"
    runuser -u postgres -- test -w "$dir/pg" ||
      { echo "$dir must be reachable by the postgres user (its parent folders too)" >&2; return 1; }
  fi
  as_pg_owner "$bin/initdb" -D "$dir/pg" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; return 1; }
  # A port found free can be taken before the server binds it: another port, up to three times.
  local try
  for try in 1 2 3; do
    free_port >"$dir/pg.port" || return 1
    start_postgres "$dir" && break
    [ "$try" = 3 ] && return 1
  done
  for try in 1 2 3; do
    free_port >"$dir/redis.port" || return 1
    start_redis "$dir" && break
    [ "$try" = 3 ] && return 1
  done
  echo "CLUSTER_DB_URL=postgres://postgres@127.0.0.1:$(cat "$dir/pg.port")/postgres"
  echo "CLUSTER_REDIS_URL=redis://127.0.0.1:$(cat "$dir/redis.port")"
}

# start_postgres DIR: starts (again) the PostgreSQL that start_cluster made in DIR, on its port.
start_postgres() {
  local dir="$1" bin
  bin="$(pg_bin_dir)"
  # Throwaway data: no fsync. Only the loopback address and a socket inside the folder.
  as_pg_owner "$bin/pg_ctl" -D "$dir/pg" -l "$dir/pg/server.log" -w -t 60 \
    -o "-p $(cat "$dir/pg.port") -k $dir/pg -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null || { cat "$dir/pg/server.log" >&2; return 1; }
}

# stop_postgres DIR: stops it as an operator would for maintenance (fast: sessions are ended).
stop_postgres() {
  local dir="$1"
  as_pg_owner "$(pg_bin_dir)/pg_ctl" -D "$dir/pg" -m fast -w stop >/dev/null
}

# start_redis DIR: starts (again) the Redis of DIR on its port, without persistence: empty.
start_redis() {
  local dir="$1" port
  port="$(cat "$dir/redis.port")"
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
    --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" --dir "$dir" ||
    { cat "$dir/redis.log" >&2; return 1; }
  for _ in $(seq 1 100); do
    [ -s "$dir/redis.pid" ] && redis-cli -p "$port" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "Redis did not start on port $port:" >&2
  tail -5 "$dir/redis.log" >&2
  stop_redis_pid "$dir/redis.pid"
  return 1
}

# kill_redis DIR: kills the Redis of DIR as a crash would (SIGKILL), and waits until it is gone.
kill_redis() {
  local dir="$1" pid
  [ -s "$dir/redis.pid" ] || return 0
  pid="$(cat "$dir/redis.pid")"
  kill -9 "$pid" 2>/dev/null
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$dir/redis.pid"
}

# start_redis_cluster DIR [PRIMARIES]: a Redis Cluster of PRIMARIES (3) throwaway redis-server
# processes (cluster-enabled, no replicas, no persistence) joined with `redis-cli --cluster create`,
# each in DIR/rc-N; prints CLUSTER_REDIS_CLUSTER_URL=redis://host:port,redis://host:port,...
start_redis_cluster() {
  local dir="$1" count="${2:-3}" port i nodes=() urls=()
  for i in $(seq 1 "$count"); do
    mkdir -p "$dir/rc-$i"
    # A port found free can be taken before the node binds it (a daemonized node that cannot
    # bind exits unseen): another port, up to three times.
    local attempt
    for attempt in 1 2 3; do
      port="$(free_port)" || return 1
      echo "$port" >"$dir/rc-$i/port"
      start_redis_cluster_node "$dir/rc-$i" || return 1
      redis_answers "$port" && break
      stop_redis_pid "$dir/rc-$i/redis.pid"
      [ "$attempt" = 3 ] && { tail -5 "$dir/rc-$i/redis.log" >&2; return 1; }
    done
    nodes+=("127.0.0.1:$port")
    urls+=("redis://127.0.0.1:$port")
  done
  redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >"$dir/rc-create.log" 2>&1 ||
    { cat "$dir/rc-create.log" >&2; return 1; }
  # Every node must agree that all slots are served before clients use it.
  for _ in $(seq 1 100); do
    local ok=1
    for node in "${nodes[@]}"; do
      redis-cli -h "${node%:*}" -p "${node#*:}" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || ok=0
    done
    [ "$ok" = 1 ] && break
    sleep 0.1
  done
  local joined
  joined="$(IFS=,; echo "${urls[*]}")"
  echo "CLUSTER_REDIS_CLUSTER_URL=$joined"
}

# start_redis_cluster_node NODE_DIR: starts (again) one node of a Redis Cluster on the port in
# NODE_DIR/port; its nodes.conf there keeps its place in the Cluster, its data starts empty.
start_redis_cluster_node() {
  local node="$1"
  redis-server --port "$(cat "$node/port")" --bind 127.0.0.1 --save '' --appendonly no \
    --cluster-enabled yes --cluster-config-file "$node/nodes.conf" --cluster-node-timeout 2000 \
    --daemonize yes --pidfile "$node/redis.pid" --logfile "$node/redis.log" --dir "$node" ||
    { cat "$node/redis.log" >&2; return 1; }
}

# redis_answers PORT: whether a Redis on PORT answers PING within ten seconds.
redis_answers() {
  for _ in $(seq 1 100); do
    redis-cli -p "$1" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

# kill_redis_cluster DIR: kills every node of the Redis Cluster in DIR as a crash would.
kill_redis_cluster() {
  local dir="$1" file pid
  for file in "$dir"/rc-*/redis.pid; do
    [ -s "$file" ] || continue
    pid="$(cat "$file")"
    kill -9 "$pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    rm -f "$file"
  done
}

# restart_redis_cluster DIR: starts the killed nodes again on their ports, empty, and waits until
# the Cluster serves every slot.
restart_redis_cluster() {
  local dir="$1" node ok
  for node in "$dir"/rc-*/; do start_redis_cluster_node "${node%/}" || return 1; done
  for _ in $(seq 1 100); do
    ok=1
    for node in "$dir"/rc-*/; do
      redis-cli -p "$(cat "$node/port")" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || ok=0
    done
    [ "$ok" = 1 ] && return 0
    sleep 0.1
  done
  echo "The Redis Cluster in $dir did not come back" >&2
  return 1
}

# Stops a redis-server by the process id in its pid file, waiting until it has exited.
stop_redis_pid() {
  local file="$1" pid
  [ -s "$file" ] || return 0
  pid="$(cat "$file")"
  kill "$pid" 2>/dev/null
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
}

# stop_cluster DIR: stops what start_cluster and start_redis_cluster started there (by their
# process ids) and removes DIR.
stop_cluster() {
  local dir="$1" bin file
  [ -d "$dir" ] || return 0
  bin="$(pg_bin_dir)"
  if [ -n "$bin" ] && [ -f "$dir/pg/postmaster.pid" ]; then
    as_pg_owner "$bin/pg_ctl" -D "$dir/pg" -m immediate -w stop >/dev/null 2>&1
  fi
  stop_redis_pid "$dir/redis.pid"
  for file in "$dir"/rc-*/redis.pid; do
    [ -e "$file" ] && stop_redis_pid "$file"
  done
  rm -rf "$dir"
}
