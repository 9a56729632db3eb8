import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { Session } from "../client/index.js";

/** What `hirebridge login` keeps: where the services are, who logged in, and the current tokens. */
export type StoredSession = {
  version: 1;
  authUrl: string;
  apiUrl: string;
  proxyUrl: string;
  clientId: string;
  username: string;
  orgId: string | null;
  /** Null once the session has ended (the URLs and username stay for the next login). */
  session: Session | null;
};

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/** `$XDG_CONFIG_HOME/hirebridge/session.json`, else `~/.config/hirebridge/session.json`. */
export function sessionFile(env: Record<string, string | undefined>): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
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
