import { chmod, mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { Session } from "../client/index.js";
import { CliError, EXIT } from "./cli-errors.js";

/** What `hirebridge login` keeps: where the services are, who logged in, and the current tokens. */
export type StoredSession = {
  version: 1;
  authUrl: string;
  apiUrl: string;
  proxyUrl: string;
  clientId: string;
  /**
   * A service account's secret (`login --client-secret-stdin`): each new token is obtained with it,
   * as there is no refresh token. Kept in this 0600 file like the tokens.
   */
  clientSecret?: string;
  username: string;
  orgId: string | null;
  /** Null once the session has ended (the URLs and username stay for the next login). */
  session: Session | null;
};

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/** `$XDG_CONFIG_HOME/hirebridge/session.json`, else `~/.config/hirebridge/session.json`. */
export function sessionFile(env: Record<string, string | undefined>): string {
  const base = env["XDG_CONFIG_HOME"] || join(env["HOME"] || homedir(), ".config");
  return join(base, "hirebridge", "session.json");
}

export async function readStoredSession(file: string): Promise<StoredSession | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  // Tokens are credentials: a file others can read is tightened at once.
  if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, FILE_MODE);
  try {
    const parsed = JSON.parse(text) as StoredSession;
    return parsed.version === 1 ? parsed : null;
  } catch {
    return null; // a damaged file is treated as no session; the next login rewrites it
  }
}

/**
 * Writes atomically (temp file + rename) with mode 0600 from the first byte, so a crash never
 * leaves half a file and no other user can read the tokens even briefly.
 */
export async function writeStoredSession(file: string, data: StoredSession): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: DIR_MODE });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(data, null, 2)}\n`, { mode: FILE_MODE });
  await chmod(temp, FILE_MODE); // the umask may have masked bits off, never on; be explicit anyway
  await rename(temp, file);
}

export async function deleteStoredSession(file: string): Promise<boolean> {
  try {
    await rm(file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw err;
  }
}

const LOCK_STALE_MS = 30_000;
const LOCK_WAIT_MS = 30_000;

/**
 * Runs `work` holding `<file>.lock` (created exclusively), so two commands refreshing the same
 * session take turns: the second finds the first's rotated tokens in the file instead of spending a
 * refresh token twice (which would end the session). A lock older than 30 s is a crashed holder's.
 */
export async function withFileLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  await mkdir(dirname(file), { recursive: true, mode: DIR_MODE });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await open(lock, "wx", FILE_MODE);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const held = await stat(lock).catch(() => null);
      if (held && Date.now() - held.mtimeMs > LOCK_STALE_MS) {
        await rm(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new CliError(`The session is locked by another hirebridge command (${lock})`, EXIT.FAILURE);
      await sleep(25 + Math.random() * 50);
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { force: true });
  }
}
