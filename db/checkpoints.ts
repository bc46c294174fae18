import type { Database as BunDatabase } from "bun:sqlite";

/**
 * SQLite copies its write-ahead log into the database file (a checkpoint) on the commit that
 * takes the log past 1,000 pages, and syncs the file to disk there: with bun:sqlite, on the
 * server's one thread. On this kind of disk that sync took 25–30 ms for a 1,000-page log and
 * 75–90 ms for 4,000, and every request, chat message and match waited behind it. The server's
 * connection is told not to checkpoint; a worker thread with a connection of its own looks every
 * `everyMs` and checkpoints once the log holds `frames` pages not yet in the file (SQLite's frames: a page
 * written again is a new frame), as SQLite would
 * (PASSIVE: it never waits for, nor holds up, the server's writes), and syncs there. So a tool
 * that reads the log beside the site (Litestream) sees checkpoints as often as before. Commits
 * themselves never sync (synchronous = NORMAL), so nothing else changes.
 *
 * How many frames wait is read from the log's index (the "-shm" file), as SQLite's file format
 * documents it: the frames in the log (mxFrame, 4 bytes at offset 16) and those already copied
 * (nBackfill, at 96), in the machine's byte order. Should that reading ever fail, a checkpoint
 * still comes every `atLeastEveryMs` (a minute), so the log cannot grow without end.
 */
const WORKER = `
import { Database } from "bun:sqlite";
import { closeSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";
let db;
let timer;
let index;
const header = new Uint8Array(100);
const view = new DataView(header.buffer);
const little = endianness() === "LE";
const waiting = (file) => {
  try {
    index ??= openSync(file + "-shm", "r");
    if (readSync(index, header, 0, 100, 0) < 100) return 0;
    return view.getUint32(16, little) - view.getUint32(96, little);
  } catch {
    // No index yet (nothing written): nothing waits.
    return 0;
  }
};
let last = Date.now();
const checkpoint = (file, frames, atLeastEveryMs) => {
  const pending = waiting(file);
  postMessage({ type: "looked", waiting: pending });
  if (pending < frames && Date.now() - last < atLeastEveryMs) return;
  last = Date.now();
  try {
    postMessage({ type: "checkpoint", ...db.query("PRAGMA wal_checkpoint(PASSIVE)").get() });
  } catch (error) {
    postMessage({ type: "failed", message: String(error) });
  }
};
self.onmessage = (event) => {
  const message = event.data;
  if (message.type === "start") {
    try {
      db = new Database(message.file);
      db.run("PRAGMA busy_timeout = 5000");
    } catch (error) {
      postMessage({ type: "failed", fatal: true, message: String(error) });
      return;
    }
    timer = setInterval(
      () => checkpoint(message.file, message.frames, message.atLeastEveryMs),
      message.everyMs,
    );
  } else if (message.type === "stop") {
    clearInterval(timer);
    if (index !== undefined) closeSync(index);
    db?.close();
    postMessage({ type: "stopped" });
  }
};
`;

/** One checkpoint the worker ran: frames in the log, and how many are now in the file. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

export interface CheckpointsAside {
  /** Stops the worker once a checkpoint under way is done, and closes its connection. */
  stop(): Promise<void>;
}

/** How long `stop` waits for the worker to close its connection before ending it anyway. */
const STOP_WAIT_MS = 5000;

/** SQLite's own threshold (wal_autocheckpoint's default): frames waiting in the log. */
const FRAMES = 1000;

/**
 * Checkpoints `sqlite`'s database (the file `file`) on a worker thread, looking every `everyMs`
 * (1 s) and checkpointing once `frames` (1,000) wait. If the worker fails, the connection
 * checkpoints itself again as SQLite does by default.
 */
export function checkpointAside(
  sqlite: BunDatabase,
  file: string,
  options: {
    everyMs?: number;
    frames?: number;
    atLeastEveryMs?: number;
    /** Each look at the log: how many frames waited. */
    onLook?: (waiting: number) => void;
    onCheckpoint?: (result: CheckpointResult) => void;
    onError?: (message: string) => void;
  } = {},
): CheckpointsAside {
  const url = URL.createObjectURL(new Blob([WORKER], { type: "application/javascript" }));
  // The worker reads its source from the URL once it starts: it is let go at stop.
  const worker = new Worker(url);
  const fallBack = (message: string) => {
    sqlite.run(`PRAGMA wal_autocheckpoint = ${FRAMES}`);
    options.onError?.(message);
  };
  let stopped: (() => void) | undefined;
  worker.onmessage = (event: MessageEvent) => {
    const message = event.data as
      | { type: "looked"; waiting: number }
      | ({ type: "checkpoint" } & CheckpointResult)
      | { type: "failed"; fatal?: boolean; message: string }
      | { type: "stopped" };
    if (message.type === "looked") {
      options.onLook?.(message.waiting);
    } else if (message.type === "checkpoint") {
      const { busy, log, checkpointed } = message;
      options.onCheckpoint?.({ busy, log, checkpointed });
    } else if (message.type === "failed") {
      if (message.fatal) fallBack(message.message);
      else options.onError?.(message.message);
    } else {
      stopped?.();
    }
  };
  worker.onerror = (event) => fallBack(event.message);
  sqlite.run("PRAGMA wal_autocheckpoint = 0");
  worker.postMessage({
    type: "start",
    file,
    everyMs: options.everyMs ?? 1000,
    frames: options.frames ?? FRAMES,
    atLeastEveryMs: options.atLeastEveryMs ?? 60_000,
  });
  // A thread that is only waiting for the next checkpoint does not keep the process alive
  // (Bun's Worker has ref and unref; the DOM type it is declared with does not).
  const thread = worker as Worker & { ref(): void; unref(): void };
  thread.unref();
  return {
    async stop() {
      // Waited for with the process kept alive: at a site's stop nothing else may be left, and
      // the process would end before the database is closed and its log folded in.
      thread.ref();
      let guard: ReturnType<typeof setTimeout> | undefined;
      const done = new Promise<void>((resolve) => {
        stopped = resolve;
        guard = setTimeout(resolve, STOP_WAIT_MS);
      });
      worker.postMessage({ type: "stop" });
      await done;
      clearTimeout(guard);
      worker.terminate();
      URL.revokeObjectURL(url);
      sqlite.run(`PRAGMA wal_autocheckpoint = ${FRAMES}`);
    },
  };
}
