import pino, { type DestinationStream, type Logger } from "pino";

export type LogFormat = "text" | "json" | "off";
export type { Logger };

/** A request id a proxy sent along is kept when it is this plain; otherwise one is made. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

let requests = 0;
const instance = Math.random().toString(36).slice(2, 8);

/** The id a request is logged under: the proxy's X-Request-Id when plain, else our own. */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  if (given && REQUEST_ID.test(given)) return given;
  requests = (requests + 1) % 1e9;
  return `${instance}-${requests.toString(36)}`;
}

/**
 * The server's log through pino: one JSON object per line with `LOG_FORMAT=json` (level, time,
 * msg, and reqId where a request is involved), or the same events as short lines for people
 * with `text`. Nothing here ever carries an address or a message's text: callers log routes,
 * statuses, counts and faults only. Lines are written synchronously, so nothing is lost when
 * the process stops.
 */
export function createLogger(
  format: LogFormat,
  write: (line: string) => void = (line) => process.stdout.write(line),
): Logger {
  const options = {
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  if (format === "off") return pino({ ...options, enabled: false });
  const destination: DestinationStream =
    format === "json" ? { write } : { write: (line) => write(humanLine(line)) };
  return pino(options, destination);
}

/** One pino object as a line for people: time, level (when not info), message, request id. */
function humanLine(json: string): string {
  const { time, level, msg, reqId, ...rest } = JSON.parse(json) as Record<string, unknown>;
  const extra = Object.entries(rest)
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ");
  const parts = [String(time), level === "info" ? "" : String(level).toUpperCase(), String(msg)];
  if (extra) parts.push(extra);
  if (reqId) parts.push(`[${String(reqId)}]`);
  return `${parts.filter(Boolean).join(" ")}\n`;
}
