import { type Config, loadServiceConfig } from "../runtime/config.js";
import { dataDirOf } from "../runtime/data-dir.js";
import { releaseMemoryWhenIdle, releaseUnusedMemory } from "../runtime/release-memory.js";
import type { RunningStack } from "../runtime/stack.js";
import { checkDataDirFree, checkPorts, lockDataDir, StartupError, usesDataDir } from "../runtime/startup-checks.js";
import { ConfigError } from "../shared/config.js";
import { createLogger, type LogFormat } from "../shared/http/logger.js";
import { bannerLine, SERVICE_ORDER, type ServiceName } from "../shared/service.js";
import { startTelemetry } from "../shared/telemetry.js";

const DRAIN_TIMEOUT_MS = 15_000;

/** EX_UNAVAILABLE: a port, the data directory or storage is not available to this start. */
const EXIT_UNAVAILABLE = 69;

function parseConfig(names: ServiceName[], env: NodeJS.ProcessEnv): Config | number {
  try {
    // The base and the variables of the services asked for (all of them for `serve all`).
    const config = loadServiceConfig(names, env);
    // Relative to the checkout, not the current directory: where the CLI's `reset` looks too.
    return { ...config, DATA_DIR: dataDirOf(config) };
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 78; // EX_CONFIG
    }
    throw err;
  }
}

/**
 * The checks that need nothing built, opened or migrated: every port free, the data directory not
 * held by another Hirebridge process. With `take`, the data directory's lock is taken for this
 * process. Answers the problems, each said with what to change.
 */
export async function startupProblems(config: Config, names: ServiceName[], take: boolean): Promise<string[]> {
  const problems = await checkPorts(config, names);
  if (!usesDataDir(config, names)) return problems;
  try {
    if (take && problems.length === 0) lockDataDir(config, names);
    else checkDataDirFree(config);
  } catch (err) {
    if (!(err instanceof StartupError)) throw err;
    problems.push(err.message);
  }
  return problems;
}

const reportProblems = (problems: string[]) =>
  process.stderr.write(`Hirebridge cannot start:\n${problems.map((p) => `  - ${p}`).join("\n")}\n`);

/**
 * `hirebridge serve [all|token|api|proxy|sandbox …]`: parse the configuration once, check the
 * ports and the data directory (before opening storage), start the chosen services, print where
 * they are, and on SIGTERM/SIGINT drain in-flight requests and close storage before exiting. A
 * second signal, or a drain longer than 15 s, exits at once. `check` only checks (`npm start` runs
 * it before building).
 */
export async function serve(args: string[], env: NodeJS.ProcessEnv = process.env, opts: { check?: boolean } = {}): Promise<number> {
  const wanted = args.length === 0 || args.includes("all") ? SERVICE_ORDER : args;
  const unknown = wanted.filter((n) => !SERVICE_ORDER.includes(n as ServiceName));
  if (unknown.length) {
    process.stderr.write(`Unknown service: ${unknown.join(", ")} (choose from all, ${SERVICE_ORDER.join(", ")})\n`);
    return 2;
  }
  const names = wanted as ServiceName[];
  const config = parseConfig(names, env);
  if (typeof config === "number") return config;
  const problems = await startupProblems(config, names, !opts.check);
  if (problems.length) {
    reportProblems(problems);
    return EXIT_UNAVAILABLE;
  }
  if (opts.check) return 0;
  return run(config, names, env);
}

async function run(config: Config, wanted: ServiceName[], env: NodeJS.ProcessEnv): Promise<number> {
  const logger = createLogger(config.LOG_LEVEL, { format: config.LOG_FORMAT as LogFormat, color: !env["NO_COLOR"] });
  // Tracing starts before the services' modules (Fastify, pg, undici) are loaded, so they are instrumented.
  const stopTelemetry = await startTelemetry(config);
  const { startStack } = await import("../runtime/stack.js");
  let stack: RunningStack;
  try {
    stack = await startStack(config, wanted, logger);
  } catch (err) {
    if (!(err instanceof StartupError)) throw err;
    await stopTelemetry?.();
    reportProblems([err.message]);
    return EXIT_UNAVAILABLE;
  }
  const data = config.DATABASE_URL
    ? "Postgres (DATABASE_URL)"
    : `${config.DATA_DIR}  (database and sandbox state; \`hirebridge reset\` starts over)`;
  const lines = [...(await stack.banner()), bannerLine("Data", data)];
  releaseUnusedMemory();
  // And after each burst of requests, once idle: a full scan of the sandbox's 100,000 applications
  // would otherwise leave its heap ~110 MB larger for as long as the process runs.
  const stopIdleRelease = releaseMemoryWhenIdle(stack.services.map((s) => s.app.server));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    stopping = true;
    stopIdleRelease();
    logger.info({ signal }, "draining in-flight requests");
    const timer = setTimeout(() => {
      logger.error("drain timed out: exiting");
      process.exit(1);
    }, DRAIN_TIMEOUT_MS);
    timer.unref();
    stack
      .close()
      .then(async () => stopTelemetry?.())
      .then(
        () => {
          logger.info("stopped cleanly");
          process.exit(0);
        },
        (err: unknown) => {
          logger.error({ err }, "error while stopping");
          process.exit(1);
        },
      );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  // Said once a signal stops it cleanly (draining, releasing DATA_DIR).
  process.stdout.write(`\nHirebridge is running.\n${lines.map((l) => `  ${l}`).join("\n")}\n\n`);
  return new Promise<number>(() => {}); // runs until a signal
}
