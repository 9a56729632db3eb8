import { loadConfig } from "../../src/shared/config.js";
import { ConfigSchema, type Config } from "../../src/runtime/config.js";
import { createLogger } from "../../src/shared/http/logger.js";

/** The run contract's defaults with `overrides` applied, parsed exactly as the services parse env. */
export function testConfig(overrides: Record<string, string | number | undefined> = {}): Config {
  // Rate limits are off unless a test turns them on: suites share one client address.
  const env: Record<string, string> = {
    LOG_LEVEL: process.env["TEST_LOG_LEVEL"] ?? "silent",
    RATE_LIMIT_PER_MINUTE: "0",
    RATE_LIMIT_ORG_PER_MINUTE: "0",
    TOKEN_RATE_LIMIT_PER_MINUTE: "0",
  };
  for (const [k, v] of Object.entries(overrides)) if (v !== undefined) env[k] = String(v);
  return loadConfig(ConfigSchema, env);
}

export const silentLogger = () => createLogger(process.env["TEST_LOG_LEVEL"] ?? "silent");
