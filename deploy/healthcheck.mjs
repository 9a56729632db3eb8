#!/usr/bin/env node
/**
 * Container health check: GET /healthz (liveness: the process answers; no I/O behind it) on the port
 * of every service this container serves, and exit 0 only when all answer 200 within the timeout.
 * With `--ready`, GET /readyz instead (readiness: storage, queue and cache answer). Plain JavaScript
 * with no imports beyond Node, so a check costs one short-lived `node` and no TypeScript loader.
 *
 * Usage: `node deploy/healthcheck.mjs [--ready] [all | token | api | proxy | sandbox | console ...]`.
 * Without service names it reads what PID 1 was started with (`… src/cli/main.ts serve api`), so the
 * image's one HEALTHCHECK fits whatever command the container runs. Ports come from the same
 * variables and defaults as src/shared/config.ts (a test keeps the two equal).
 *
 * The image's HEALTHCHECK is liveness: a Postgres outage must not get every instance restarted.
 * The compose file asks for readiness, which only orders start-up (`depends_on: service_healthy`):
 * Docker restarts nothing for being unhealthy.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Service → [port variable, its ConfigSchema default]. */
export const SERVICE_PORTS = {
  token: ["AUTH_PORT", 8080],
  api: ["API_PORT", 8001],
  proxy: ["PROXY_PORT", 8000],
  sandbox: ["SANDBOX_PORT", 8090],
  console: ["CONSOLE_PORT", 8002],
};

/** The services of a `serve` command line; `serve` alone or `serve all` means every service. */
export function servicesOf(argv) {
  const at = argv.indexOf("serve");
  const named = (at === -1 ? argv : argv.slice(at + 1)).filter((a) => a in SERVICE_PORTS || a === "all");
  return named.length === 0 || named.includes("all") ? Object.keys(SERVICE_PORTS) : named;
}

function pid1Args() {
  try {
    return readFileSync("/proc/1/cmdline", "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}

async function healthy(service, env, path) {
  const [variable, fallback] = SERVICE_PORTS[service];
  const port = Number(env[variable] || fallback);
  // A wildcard bind address is reached through loopback; a specific one must be used as it is.
  const host = !env.HOST || env.HOST === "0.0.0.0" || env.HOST === "::" ? "127.0.0.1" : env.HOST;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}${path}`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2500) });
    await res.arrayBuffer();
    if (res.status === 200) return true;
    process.stderr.write(`${service}: ${url} answered ${res.status}\n`);
  } catch (err) {
    process.stderr.write(`${service}: ${url} failed: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  return false;
}

export async function check(services, env = process.env, { ready = false } = {}) {
  const results = await Promise.all(services.map((s) => healthy(s, env, ready ? "/readyz" : "/healthz")));
  return results.every(Boolean);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const ready = args.includes("--ready");
  const named = args.filter((a) => a !== "--ready");
  const services = servicesOf(named.length ? named : pid1Args());
  process.exit((await check(services, process.env, { ready })) ? 0 : 1);
}
