import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { BaseConfig as Config } from "../shared/config.js";
import { dataDirOf } from "./data-dir.js";
import type { ServiceName } from "../shared/service.js";

/**
 * What `serve` checks before it builds, opens storage or migrates anything, so a start that cannot
 * work says at once what to fix: a port another process holds (which service, which variable, the
 * likely cause), a data directory another Hirebridge process has open, and storage it cannot reach.
 */
export class StartupError extends Error {
  override name = "StartupError";
}

/** The variable each service's port comes from. */
export const PORT_VARIABLES: Record<ServiceName, keyof Config & `${string}_PORT`> = {
  token: "AUTH_PORT",
  sandbox: "SANDBOX_PORT",
  api: "API_PORT",
  proxy: "PROXY_PORT",
  console: "CONSOLE_PORT",
};

const SERVICE_LABELS: Record<ServiceName, string> = {
  token: "the token service",
  sandbox: "the upstream sandbox",
  api: "the recruiting API",
  proxy: "the integration proxy",
  console: "the operator console",
};

/** Why `port` cannot be listened on at `host` (the error's code), or null when it can. */
function portProblem(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

const portOf = (service: ServiceName, host: string, port: number) =>
  `${host}:${port} (${PORT_VARIABLES[service]}, ${SERVICE_LABELS[service]})`;
const ANOTHER_STACK = "Another Hirebridge stack is running? (`npm start` in another terminal, a container, `hirebridge serve`)";

/** What to say about one port that cannot be listened on. */
export function portMessage(service: ServiceName, host: string, port: number, code: string): string {
  const variable = PORT_VARIABLES[service];
  const where = portOf(service, host, port);
  if (code === "EADDRINUSE") return `${where} is already in use. ${ANOTHER_STACK} Stop it, or set ${variable} to a free port.`;
  if (code === "EACCES")
    return `${where}: not allowed to listen there (ports below 1024 need privileges). Set ${variable} to a port above 1023.`;
  if (code === "EADDRNOTAVAIL") return `${where}: ${host} is not an address of this machine. Check HOST.`;
  return `${where}: cannot listen (${code}).`;
}

/**
 * Every port of `services` that cannot be listened on, each said with its service, variable and
 * likely cause (several ports in use: once, together).
 */
export async function checkPorts(config: Config, services: ServiceName[]): Promise<string[]> {
  const problems: string[] = [];
  const inUse: ServiceName[] = [];
  const seen = new Map<number, ServiceName>();
  for (const service of services) {
    const port = config[PORT_VARIABLES[service]];
    if (port === 0) continue; // any free port
    const other = seen.get(port);
    if (other) {
      problems.push(`${PORT_VARIABLES[service]} and ${PORT_VARIABLES[other]} are both ${port}: give each service its own port.`);
      continue;
    }
    seen.set(port, service);
    const code = await portProblem(config.HOST, port);
    if (code === "EADDRINUSE") inUse.push(service);
    else if (code) problems.push(portMessage(service, config.HOST, port, code));
  }
  if (inUse.length === 1) problems.unshift(portMessage(inUse[0]!, config.HOST, config[PORT_VARIABLES[inUse[0]!]], "EADDRINUSE"));
  if (inUse.length > 1) {
    const ports = inUse.map((s) => portOf(s, config.HOST, config[PORT_VARIABLES[s]])).join(", ");
    problems.unshift(`Ports already in use: ${ports}. ${ANOTHER_STACK} Stop it, or set those variables to free ports.`);
  }
  return problems;
}

/** Does this stack keep anything under DATA_DIR (embedded PGlite, or the sandbox's state)? */
export const usesDataDir = (config: Config, services: ServiceName[]) =>
  services.includes("sandbox") || (!config.DATABASE_URL && services.some((s) => s !== "sandbox" && s !== "console"));

const LOCK_FILE = "hirebridge.lock";
type LockHolder = { pid: number; services: string[]; started_at: string };

/** The process holding the data directory's lock, when one is alive (a lock left by a killed process is not held). */
function liveHolder(file: string): LockHolder | null {
  let holder: LockHolder;
  try {
    holder = JSON.parse(readFileSync(file, "utf8")) as LockHolder;
  } catch {
    return null; // unreadable or half-written: nobody to name, taken over
  }
  if (!Number.isInteger(holder.pid) || holder.pid === process.pid) return null; // our own pid: a restarted container's leftover
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // EPERM: alive, another user's. ESRCH: gone.
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return null;
  }
  // On Linux, a pid reused by something that is not Node.js does not hold it either.
  const cmdline = `/proc/${holder.pid}/cmdline`;
  if (existsSync(cmdline) && !readFileSync(cmdline, "utf8").includes("node")) return null;
  return holder;
}

function lockedMessage(dir: string, holder: LockHolder): string {
  return `DATA_DIR ${dir} is in use by another Hirebridge process (pid ${holder.pid}, serving ${holder.services.join(", ")} since ${holder.started_at}): another stack is running? Two processes must not open one embedded database. Stop it (kill ${holder.pid}), or set DATA_DIR to another directory.`;
}

/** Fails when another live process holds the data directory (without taking it: `serve --check`). */
export function checkDataDirFree(config: Config): void {
  const dir = dataDirOf(config);
  const holder = liveHolder(join(dir, LOCK_FILE));
  if (holder) throw new StartupError(lockedMessage(dir, holder));
}

/**
 * Takes the data directory for this process: `hirebridge.lock` with our pid, created exclusively.
 * A lock whose process is gone (killed, crashed) is taken over. Answers the release, also run at exit.
 */
export function lockDataDir(config: Config, services: ServiceName[]): () => void {
  const dir = dataDirOf(config);
  const file = join(dir, LOCK_FILE);
  mkdirSync(dir, { recursive: true });
  const mine: LockHolder = { pid: process.pid, services, started_at: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, `${JSON.stringify(mine)}\n`, { flag: "wx" });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw err;
      const holder = liveHolder(file);
      if (holder) throw new StartupError(lockedMessage(dir, holder));
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    try {
      if (liveHolderPid(file) === process.pid) rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
  process.once("exit", release);
  return release;
}

function liveHolderPid(file: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as LockHolder).pid;
  } catch {
    return undefined;
  }
}

/** A URL with its password hidden, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(not a URL)";
  }
}

const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET"]);

/** The code of a connection failure, looked for through `cause` and AggregateError's errors. */
function failureCode(err: unknown, depth = 0): string | undefined {
  if (!err || typeof err !== "object" || depth > 5) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") return code;
  for (const inner of [(err as { cause?: unknown }).cause, ...((err as { errors?: unknown[] }).errors ?? [])]) {
    const found = failureCode(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * A failure to reach Postgres or Redis at start-up, said with the variable that names it, or
 * undefined for any other error (rethrown as it is).
 */
export function connectionFailure(
  err: unknown,
  what: "Postgres" | "Redis",
  variable: "DATABASE_URL" | "REDIS_URL",
  url: string,
): StartupError | undefined {
  const code = failureCode(err);
  const message = err instanceof Error ? err.message : String(err);
  const where = `${what} at ${variable} (${redactUrl(url)})`;
  if (code && UNREACHABLE.has(code)) {
    return new StartupError(`Cannot reach ${where}: ${message}. Is ${what} running there? Start it, or point ${variable} at one that is.`);
  }
  // Postgres refusing the login or the database: invalid_password, invalid_authorization_specification, invalid_catalog_name.
  if (code === "28P01" || code === "28000" || code === "3D000") {
    return new StartupError(`${where} refused the connection: ${message}. Check the user, password and database in ${variable}.`);
  }
  return undefined;
}
