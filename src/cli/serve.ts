import { resolve } from "node:path";
import { ConfigError, ConfigSchema, loadConfig } from "../shared/config.js";
import { createLogger, type LogFormat } from "../shared/http/logger.js";
import { bannerLine, SERVICE_ORDER, type ServiceName } from "../runtime/service.js";
import { startTelemetry } from "../shared/telemetry.js";
import { releaseMemoryWhenIdle, releaseUnusedMemory } from "../runtime/release-memory.js";

const DRAIN_TIMEOUT_MS = 15_000;

/**
 * `hirebridge serve [all|token|api|proxy|sandbox …]`: parse the configuration once, start the
 * chosen services, print where they are, and on SIGTERM/SIGINT drain in-flight requests and close
 * storage before exiting. A second signal, or a drain longer than 15 s, exits at once.
 */
export async function serve(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const wanted = args.length === 0 || args.includes("all") ? SERVICE_ORDER : args;
  const unknown = wanted.filter((n) => !SERVICE_ORDER.includes(n as ServiceName));
  if (unknown.length) {
    process.stderr.write(`Unknown service: ${unknown.join(", ")} (choose from all, ${SERVICE_ORDER.join(", ")})\n`);
    return 2;
  }
  let config;
  try {
    config = loadConfig(ConfigSchema, env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 78; // EX_CONFIG
    }
    throw err;
  }
  const logger = createLogger(config.LOG_LEVEL, { format: config.LOG_FORMAT as LogFormat });
  // Tracing starts before the services' modules (Fastify, pg, undici) are loaded, so they are instrumented.
  const stopTelemetry = await startTelemetry(config);
  const { startStack } = await import("../runtime/stack.js");
  const stack = await startStack(config, wanted as ServiceName[], logger);
  const data = config.DATABASE_URL
    ? "Postgres (DATABASE_URL)"
    : `${resolve(config.DATA_DIR)}  (database and sandbox state; \`hirebridge reset\` starts over)`;
  const lines = [...(await stack.banner()), bannerLine("Data", data)];
  process.stdout.write(`\nHirebridge is running.\n${lines.map((l) => `  ${l}`).join("\n")}\n\n`);
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
  return new Promise<number>(() => {}); // runs until a signal
}
