import type { Server } from "bun";
import { migrateToLatest, openDatabase } from "../../db/migrate.ts";
import { FeatureSwitches } from "../core/admin/features.ts";
import { openReportCount } from "../core/admin/operator.ts";
import { DeviceCookies } from "../core/auth/devices.ts";
import { rightsVersion } from "../core/auth/rights.ts";
import { purgeExpiredSessions } from "../core/auth/sessions.ts";
import { purgeExpiredBottles } from "../core/bottles/bottles.ts";
import { FindCounter } from "../core/bottles/finds.ts";
import { RecentlyShown } from "../core/bottles/pick.ts";
import { ShownBottles } from "../core/bottles/shown.ts";
import { purgeBanHistory, purgeSightings, Sightings } from "../core/chat/bans.ts";
import { purgeBlocks, restoreBlocks } from "../core/chat/blocks.ts";
import type { BrokerOptions } from "../core/chat/broker.ts";
import { CHAT_CONNECTIONS, ChatFloodLimits } from "../core/chat/flood.ts";
import { purgeHandledReports } from "../core/chat/reports.ts";
import { systemTime, type Time } from "../core/clock.ts";
import { openCountryLookup } from "../core/geo/country-lookup.ts";
import { createModerator } from "../core/moderation/external.ts";
import { RepeatMemory } from "../core/moderation/repeats.ts";
import { ProofOfWork } from "../core/pow/proof-of-work.ts";
import { purgeAgeAnswers, rememberAgeAnswers } from "../core/safety/ages.ts";
import { createTranslator } from "../core/translation/index.ts";
import { ChatTranslations } from "../core/translation/memory-cache.ts";
import { loadWebAssets } from "./assets.ts";
import { holdServingLock, judgeSnapshots, newestSnapshot, scheduleBackups } from "./backups.ts";
import { assertServable, type Config, ConfigError } from "./config.ts";
import { createErrorLog } from "./error-log.ts";
import { createHandler } from "./handler.ts";
import { Health } from "./health.ts";
import { createLogger } from "./log.ts";
import { bearerMatches, SiteMetrics, timedBroker } from "./metrics.ts";
import type { Services } from "./services.ts";
import { openSharedState } from "./shared-state.ts";
import { createWebSocket } from "./ws.ts";

export interface RunningApp {
  // biome-ignore lint/suspicious/noExplicitAny: the socket data type belongs to the WebSocket glue.
  server: Server<any>;
  url: URL;
  services: Services;
  /** The metrics listener on METRICS_PORT, when one is set. */
  metricsUrl?: URL;
  /**
   * The start of a stop: /healthz/ready answers 503 while the site keeps serving for the drain
   * period (SHUTDOWN_DRAIN), so a load balancer lets the instance go first.
   */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

export interface AppOptions {
  /**
   * The clock and timers of everything that waits (the system's): limits, sweeps, caches, the
   * periodic reads of bans and off switches. Tests pass a virtual clock and move it.
   */
  clock?: Time;
  /** Chat timings and the flood limit's rules, changed in tests. */
  chat?: Pick<BrokerOptions, "resumeGraceMs" | "meetAgainAfterMs"> & {
    flood?: ConstructorParameters<typeof ChatFloodLimits>[1];
  };
  /** How often bans written by operator commands are read (10 s). */
  banSyncMs?: number;
  /** How often the operator's off switches are read (5 s). */
  featureSyncMs?: number;
  /** How often the mark of rights changed by operator commands is read (0.5 s). */
  rightsSyncMs?: number;
}

/** Opens and migrates the database, bundles the front end, and listens. */
export async function startApp(config: Config, options: AppOptions = {}): Promise<RunningApp> {
  const clock = options.clock ?? systemTime;
  const now = clock.now;
  assertServable(config);
  const log = createLogger(config.logFormat);
  const metrics = new SiteMetrics(now);
  const errors = createErrorLog({
    scheduler: clock,
    write: (line, reqId) => log.error(reqId ? { reqId } : {}, line),
    onFault: () => metrics.faults.inc(),
  });
  const database = openDatabase(config.database, {
    log: (event) =>
      metrics.dbQueries.observe(
        { outcome: event.level === "error" ? "error" : "ok" },
        event.queryDurationMillis / 1000,
      ),
    checkpointsAside: {
      onError: (message) => errors.fault("checkpointing the database aside", new Error(message)),
    },
  });
  const { db } = database;
  // `tidings restore` refuses while a site holds this (SQLite: the database is a file here).
  const lock = config.database.engine === "sqlite" ? holdServingLock(config.dataDir) : undefined;
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close().catch(() => {});
    lock?.release();
    // An unreachable server says only ECONNREFUSED; the operator needs to know which one.
    throw new Error(`could not open and migrate the ${database.where}: ${String(error)}`, {
      cause: error,
    });
  }
  // Holding the serving lock, this process alone answers the age gates: it keeps the answers.
  if (lock) rememberAgeAnswers(db, now);
  const assets = await loadWebAssets();
  const { flood, ...chatTimings } = options.chat ?? {};
  const shared = await openSharedState(config, db, clock, chatTimings);
  const { bans } = shared;
  const broker = timedBroker(shared.broker, metrics, now);
  metrics.watch({
    chatCounts: () => broker.counts(),
    openReports: () => openReportCount(db),
    redisPing: shared.ping,
    futureSnapshots:
      config.database.engine === "sqlite"
        ? () => judgeSnapshots(config.backups.dir, now()).future.length
        : undefined,
  });
  // Blocks last 30 days; a broker in memory starts without them.
  await restoreBlocks(db, broker, now());
  const services: Services = {
    config,
    db,
    limiter: shared.limiter,
    assets,
    countries: await openCountryLookup({ databaseFile: config.geoipDb }),
    moderator: createModerator({
      ...config.moderation,
      onFallback: (error) => errors.fault("moderation API failed; local lists decided", error),
    }),
    translator: createTranslator(config.translation, clock),
    chatTranslations: new ChatTranslations(clock),
    recentlyShown: new RecentlyShown(),
    shownBottles: new ShownBottles(config.secret, now),
    finds: new FindCounter(db, {
      onError: (error) => errors.fault("counting finds", error),
      scheduler: clock,
    }),
    devices: new DeviceCookies(config.secret, now),
    chat: {
      broker,
      bans,
      flood: new ChatFloodLimits(now, flood),
      connections: new ChatFloodLimits(now, CHAT_CONNECTIONS),
      sightings: new Sightings(db, {
        onError: (error) => errors.fault("noting addresses seen", error),
        scheduler: clock,
      }),
    },
    repeats: new RepeatMemory(now),
    features: new FeatureSwitches(db, config.features),
    pow: new ProofOfWork({
      ...config.pow,
      secret: config.secret,
      ...shared.pow,
      now,
    }),
    revocations: shared.revocations,
    metrics,
    log,
    health: new Health(db, config.database.engine, {
      redisPing: shared.ping,
      onFailure: (check, error) => errors.fault(`readiness: ${check}`, error),
    }),
    now,
  };
  await services.features.refresh();
  let rightsSeen = await rightsVersion(db);
  const socket = createWebSocket(services, errors);
  // A site that cannot listen lets go of what it opened: the database, its lock, Redis.
  const abandon = async () => {
    await shared.close().catch(() => {});
    await database.close().catch(() => {});
    lock?.release();
    errors.close();
  };
  const server = await listening(config.host, config.port, abandon, () =>
    Bun.serve({
      port: config.port,
      hostname: config.host,
      // Bun shares a production server's port with any other process that asks (SO_REUSEPORT):
      // a second site started there by mistake would silently take part of the visitors.
      reusePort: false,
      development: false,
      // Room above MAX_BODY_BYTES so oversized requests get our explained 413, not a bare one.
      maxRequestBodySize: 4 * 1024 * 1024,
      fetch: createHandler(services, socket, errors),
      websocket: socket.websocket,
      error(error) {
        errors.fault("unhandled request error", error);
        return new Response("Internal Server Error", { status: 500 });
      },
    }),
  );
  const metricsServer =
    config.metrics.port === undefined
      ? undefined
      : await listening(
          config.metrics.host,
          config.metrics.port,
          async () => {
            await server.stop(true);
            await abandon();
          },
          () =>
            Bun.serve({
              port: config.metrics.port,
              hostname: config.metrics.host,
              reusePort: false,
              development: false,
              async fetch(request) {
                if (new URL(request.url).pathname !== "/metrics") {
                  return new Response("Not Found", { status: 404 });
                }
                if (config.metrics.token && !bearerMatches(request, config.metrics.token)) {
                  return new Response("Unauthorized", { status: 401 });
                }
                const { body, contentType } = await metrics.text();
                return new Response(body, { headers: { "Content-Type": contentType } });
              },
            }),
        );
  const newest = newestSnapshot(config.backups.dir, now()) ?? null;
  if (newest) metrics.backupLastSuccess.set(newest.takenAt / 1000);
  const { future } = judgeSnapshots(config.backups.dir, now());
  if (future.length > 0) {
    // Not counted as the newest (it would hold off every backup); someone should look at it.
    errors.fault(
      "snapshots in BACKUP_DIR dated in the future (not counted as the newest)",
      new Error(future.join(", ")),
    );
  }
  const backups =
    config.backups.everyMs === undefined
      ? undefined
      : scheduleBackups({
          backend: database,
          dir: config.backups.dir,
          everyMs: config.backups.everyMs,
          keep: config.backups.keep,
          now,
          newest,
          onSnapshot({ file, takenAt }) {
            metrics.backups.inc({ outcome: "ok" });
            metrics.backupLastSuccess.set(takenAt / 1000);
            log.info({ file }, `backup: ${file}`);
          },
          onFailure(error) {
            metrics.backups.inc({ outcome: "failed" });
            errors.fault("scheduled backup failed", error);
          },
        });
  const pruning = clock.setInterval(() => {
    services.limiter.prune();
    services.chat.flood.prune();
    services.chat.connections.prune();
    services.repeats.prune();
  }, 60_000);
  pruning.unref();
  // The operator's ban and unban commands write to the database from another process.
  const banSync = clock.setInterval(async () => {
    try {
      for (const { key, until } of await bans.refresh()) {
        await services.chat.broker.ban([{ key, until }]);
      }
    } catch (error) {
      errors.fault("reading chat bans", error);
    }
  }, options.banSyncMs ?? 10_000);
  banSync.unref();
  // The operator's off switches, set on any instance, take effect here within this.
  const featureSync = clock.setInterval(() => {
    services.features.refresh().catch((error) => errors.fault("reading off switches", error));
  }, options.featureSyncMs ?? 5000);
  featureSync.unref();
  // The operator command's `operator add` and `operator remove` write from another process:
  // open sockets read their rights again within this. A read is one row by its key.
  const rightsSync = clock.setInterval(async () => {
    try {
      const version = await rightsVersion(db);
      if (version === rightsSeen) return;
      rightsSeen = version;
      services.revocations.forgetAll();
    } catch (error) {
      errors.fault("reading rights changed", error);
    }
  }, options.rightsSyncMs ?? 500);
  rightsSync.unref();
  // Hourly: what is no longer needed leaves the database (expired sessions and bottles, ended
  // bans and forgotten steps, handled reports after 90 days, age answers past their hold, solved
  // challenges past their expiry).
  const purging = clock.setInterval(
    () => {
      Promise.all([
        purgeExpiredSessions(db, now()),
        purgeExpiredBottles(db, now()),
        purgeSightings(db, now()),
        purgeBlocks(db, now()),
        purgeBanHistory(db, now()),
        purgeHandledReports(db, now()),
        purgeAgeAnswers(db, now()),
        services.pow.purge(),
      ]).catch((error) => errors.fault("hourly purge", error));
    },
    60 * 60 * 1000,
  );
  purging.unref();
  let drained: Promise<void> | undefined;
  return {
    server,
    url: server.url,
    services,
    metricsUrl: metricsServer?.url,
    drain() {
      services.health.drain();
      drained ??= Bun.sleep(config.shutdownDrainMs);
      return drained;
    },
    /**
     * Stops accepting, tells chat partners (or, with other instances, sends its visitors to
     * them), lets requests in flight (and their writes) finish for a moment, then closes the
     * database (on SQLite, after folding the WAL into the file).
     */
    async stop() {
      services.health.drain();
      clock.clearInterval(pruning);
      clock.clearInterval(purging);
      clock.clearInterval(banSync);
      clock.clearInterval(featureSync);
      clock.clearInterval(rightsSync);
      backups?.stop();
      // Alone, the site ends its chats; with others, its visitors reconnect to one of them.
      if (shared.shared) socket.reconnectAll();
      else await services.chat.broker.endAll();
      // Real time, whatever the clock: these wait for the network, not for the site's rules.
      await Bun.sleep(50); // lets the last events reach the sockets
      // "Server restarting": the web reconnects at once (to another instance, when there is one).
      socket.closeAll();
      await Promise.race([server.stop(false), Bun.sleep(2500)]);
      await server.stop(true);
      await metricsServer?.stop(true);
      await shared.close();
      // The finds and sightings of the last moment are written before the database closes.
      await Promise.all([services.finds.flush(), services.chat.sightings.flush()]);
      await database.close();
      lock?.release();
      errors.close();
    },
  };
}

/** The site cannot listen where it was told to; the message says why and what to do. */
export class CannotListenError extends ConfigError {}

/** A port another process listens on: the start is refused, saying which and what to do. */
export class PortInUseError extends CannotListenError {}

/** Starts a server with `serve`; when it cannot listen, `abandon`s the start and says why. */
async function listening<T>(
  host: string,
  port: number,
  abandon: () => Promise<void>,
  serve: () => T,
): Promise<T> {
  try {
    return serve();
  } catch (error) {
    await abandon();
    const code = (error as { code?: unknown } | null)?.code;
    const where = `port ${port} on ${host}`;
    if (code === "EADDRINUSE") {
      throw new PortInUseError(
        `${where} is already in use by another program (another Tidings?): stop it, or choose another port with --port`,
        { cause: error },
      );
    }
    if (code === "EADDRNOTAVAIL") {
      throw new CannotListenError(
        `cannot listen on ${where}: ${host} is not an address of this machine; check --host`,
        { cause: error },
      );
    }
    if (code === "EACCES") {
      throw new CannotListenError(
        `cannot listen on ${where}: ports below 1024 need privileges; use a higher port behind a proxy, or grant the program CAP_NET_BIND_SERVICE`,
        { cause: error },
      );
    }
    throw error;
  }
}
