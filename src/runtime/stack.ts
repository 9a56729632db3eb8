import type { Logger } from "pino";
import { serviceUrls } from "../shared/config.js";
import type { Database } from "../shared/db/database.js";
import { drainConnections } from "../shared/http/drain.js";
import type { JobQueue } from "../shared/jobs/queue.js";
import { SERVICE_ORDER, type BuiltService, type ServiceFactory, type ServiceName } from "../shared/service.js";
import type { Config, ConfigOf } from "./config.js";
import { connectionFailure, portMessage, redactUrl, StartupError } from "./startup-checks.js";

/** Every service, in start order: the token service first so the others' discovery finds it. */
// Each service registers one line here as it lands (lazy imports keep `serve sandbox` light).
// Each is typed with its service's configuration (ConfigOf): a service that read a variable outside
// its slices would not compile here.
const FACTORIES: { [N in ServiceName]?: () => Promise<ServiceFactory<ConfigOf<N>>> } = {
  token: async () => (await import("../services/token/service.js")).createTokenService,
  api: async () => (await import("./wiring.js")).recruitingServiceWithWriteBack,
  sandbox: async () => (await import("../services/sandbox/service.js")).createSandboxService,
  proxy: async () => (await import("./wiring.js")).proxyServiceWithSync,
  console: async () => (await import("../services/console/service.js")).createConsoleService,
};
export { SERVICE_ORDER } from "../shared/service.js";
const NEEDS_STORAGE: Record<ServiceName, boolean> = { token: true, sandbox: false, api: true, proxy: true, console: false };

/** The services that talk to Redis when REDIS_URL is set (rate limits, the proxy's cache). */
const USES_REDIS: Record<ServiceName, boolean> = { token: true, sandbox: false, api: true, proxy: true, console: false };

/** Opens and migrates storage; a Postgres it cannot reach is said with DATABASE_URL. */
async function openStorage(config: Config, logger: Logger): Promise<Database> {
  // Loaded only with storage: drizzle, pg and pg-boss add ~27 MB RSS to `serve sandbox` (measured).
  const [{ openDatabase }, { migrate }] = await Promise.all([import("../shared/db/database.js"), import("../shared/db/migrate.js")]);
  let database: Database | undefined;
  try {
    database = await openDatabase({
      url: config.DATABASE_URL,
      dataDir: `${config.DATA_DIR}/pglite`,
      schema: config.DATABASE_SCHEMA,
      pgliteCompiler: config.PGLITE_WASM_COMPILER,
      bounds: {
        statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
        requestStatementTimeoutMs: config.DATABASE_REQUEST_STATEMENT_TIMEOUT_MS,
        connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
      },
    });
    const applied = await migrate(database);
    if (applied.length) logger.info({ applied }, "migrations applied");
    return database;
  } catch (err) {
    await database?.close().catch(() => {});
    throw (config.DATABASE_URL && connectionFailure(err, "Postgres", "DATABASE_URL", config.DATABASE_URL)) || err;
  }
}

/** Redis answers PING within a few seconds, or the start fails naming REDIS_URL (a down Redis would only show up as errors later). */
async function checkRedis(url: string): Promise<void> {
  const { Redis } = await import("ioredis");
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 3000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let failure: unknown;
  // The socket's error (ECONNREFUSED…) comes as an event; connect() only says "Connection is closed".
  redis.on("error", (err) => {
    failure ??= err;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw (
      connectionFailure(failure ?? err, "Redis", "REDIS_URL", url) ??
      new StartupError(`Redis at REDIS_URL (${redactUrl(url)}) does not answer: ${err instanceof Error ? err.message : String(err)}`)
    );
  } finally {
    redis.disconnect();
  }
}

/** Listens; a port taken since the start-up checks (or never checked: tests) is said with its variable. */
async function listen(service: BuiltService, host: string): Promise<void> {
  try {
    await service.app.listen({ host, port: service.port });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE" || code === "EACCES" || code === "EADDRNOTAVAIL")
      throw new StartupError(portMessage(service.name, host, service.port, code));
    throw err;
  }
}

export type RunningStack = {
  services: BuiltService[];
  database: Database | undefined;
  banner(): Promise<string[]>;
  /** Stops accepting, drains in-flight requests, then closes storage. */
  close(): Promise<void>;
};

export async function startStack(
  config: Config,
  names: ServiceName[],
  logger: Logger,
  opts: { database?: Database; listen?: boolean } = {},
): Promise<RunningStack> {
  const urls = serviceUrls(config);
  const selected = SERVICE_ORDER.filter((n) => names.includes(n) && FACTORIES[n]);
  let database = opts.database;
  const ownsDatabase = !database;
  // Redis first: a start that cannot work should fail before it migrates anything.
  if (config.REDIS_URL && selected.some((n) => USES_REDIS[n])) await checkRedis(config.REDIS_URL);
  if (!database && selected.some((n) => NEEDS_STORAGE[n])) database = await openStorage(config, logger);
  let queue: Promise<JobQueue> | undefined;
  const jobQueue = () => {
    if (!database) return Promise.reject(new Error("the job queue needs storage"));
    const storage = database;
    queue ??= import("../shared/jobs/queue.js").then(({ openJobQueue }) =>
      openJobQueue(storage, logger.child({ component: "queue" }), {
        schedule: config.WORKERS,
        heartbeatSeconds: config.JOB_HEARTBEAT_SECONDS,
        deleteAfterSeconds: config.JOB_RETENTION_DAYS * 86_400,
        fair: config.JOBS_FAIR,
      }),
    );
    return queue;
  };
  const services: BuiltService[] = [];
  const closeAll = async () => {
    // Reverse order: the proxy and API stop before the token service and the sandbox they call.
    for (const s of [...services].reverse()) {
      // Open connections bring their last requests first: app.close() alone would refuse or cut them.
      await drainConnections(s.app.server).catch((err) => logger.error({ err, service: s.name }, "error draining connections"));
      await s.app.close().catch((err) => logger.error({ err, service: s.name }, "error closing app"));
      await s.close?.().catch((err) => logger.error({ err, service: s.name }, "error closing service"));
    }
    // After the apps: in-flight requests may still enqueue; running jobs finish (pg-boss waits for them).
    if (queue) await (await queue).stop().catch((err) => logger.error({ err }, "error stopping the job queue"));
    if (ownsDatabase) await database?.close();
  };
  try {
    for (const name of selected) {
      // `config` holds at least what this service's slices declare (loadServiceConfig parsed them).
      const factory = (await FACTORIES[name]!()) as ServiceFactory<Config>;
      const service = await factory({ config, urls, logger: logger.child({ service: name }), database, jobQueue });
      services.push(service);
      if (opts.listen !== false) await listen(service, config.HOST);
    }
  } catch (err) {
    await closeAll();
    throw err;
  }
  return {
    services,
    database,
    banner: async () => (await Promise.all(services.map(async (s) => (await s.banner?.()) ?? []))).flat(),
    close: closeAll,
  };
}
