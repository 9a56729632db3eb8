import type { Logger } from "pino";
import { serviceUrls, type Config } from "../shared/config.js";
import type { Database } from "../shared/db/database.js";
import { drainConnections } from "../shared/http/drain.js";
import type { JobQueue } from "../shared/jobs/queue.js";
import { SERVICE_ORDER, type BuiltService, type ServiceFactory, type ServiceName } from "./service.js";

/** Every service, in start order: the token service first so the others' discovery finds it. */
// Each service registers one line here as it lands (lazy imports keep `serve sandbox` light).
const FACTORIES: Partial<Record<ServiceName, () => Promise<ServiceFactory>>> = {
  token: async () => (await import("../services/token/service.js")).createTokenService,
  api: async () => (await import("./wiring.js")).recruitingServiceWithWriteBack,
  sandbox: async () => (await import("../services/sandbox/service.js")).createSandboxService,
  proxy: async () => (await import("./wiring.js")).proxyServiceWithSync,
  console: async () => (await import("../services/console/service.js")).createConsoleService,
};
export { SERVICE_ORDER } from "./service.js";
const NEEDS_STORAGE: Record<ServiceName, boolean> = { token: true, sandbox: false, api: true, proxy: true, console: false };

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
  if (!database && selected.some((n) => NEEDS_STORAGE[n])) {
    // Loaded only with storage: drizzle, pg and pg-boss add ~27 MB RSS to `serve sandbox` (measured).
    const [{ openDatabase }, { migrate }] = await Promise.all([import("../shared/db/database.js"), import("../shared/db/migrate.js")]);
    database = await openDatabase({
      url: config.DATABASE_URL,
      dataDir: `${config.DATA_DIR}/pglite`,
      schema: config.DATABASE_SCHEMA,
      pgliteCompiler: config.PGLITE_WASM_COMPILER,
    });
    const applied = await migrate(database);
    if (applied.length) logger.info({ applied }, "migrations applied");
  }
  let queue: Promise<JobQueue> | undefined;
  const jobQueue = () => {
    if (!database) return Promise.reject(new Error("the job queue needs storage"));
    const storage = database;
    queue ??= import("../shared/jobs/queue.js").then(({ openJobQueue }) =>
      openJobQueue(storage, logger.child({ component: "queue" }), {
        schedule: config.WORKERS,
        heartbeatSeconds: config.JOB_HEARTBEAT_SECONDS,
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
      const factory = await FACTORIES[name]!();
      const service = await factory({ config, urls, logger: logger.child({ service: name }), database, jobQueue });
      services.push(service);
      if (opts.listen !== false) await service.app.listen({ host: config.HOST, port: service.port });
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
