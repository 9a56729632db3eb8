import type { Writable } from "node:stream";
import { Hirebridge, HirebridgeAdmin, type Credentials, type Session } from "../client/index.js";
import { CliError, EXIT } from "./cli-errors.js";
import { Output, outputWidth } from "./output.js";
import { readSecret, type Terminal } from "./prompt.js";
import { readStoredSession, sessionFile, withFileLock, writeStoredSession, type StoredSession } from "./session-store.js";

export type Env = Record<string, string | undefined>;

export type CliIo = {
  stdin: Terminal["stdin"];
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  env: Env;
};

/** Options every command accepts (declared on the root program). */
export type GlobalOptions = { json?: boolean; wide?: boolean; authUrl?: string; apiUrl?: string; proxyUrl?: string; clientId?: string };

/** The run contract's local defaults: `npm start` serves exactly these. */
export const DEFAULT_URLS = {
  authUrl: "http://127.0.0.1:8080/realms/hirebridge",
  apiUrl: "http://127.0.0.1:8001/api/v1",
  proxyUrl: "http://127.0.0.1:8000/api/v1",
  clientId: "hirebridge",
} as const;

export type Endpoints = { authUrl: string; apiUrl: string; proxyUrl: string; clientId: string };

/**
 * Everything a command needs: where the services are (flag > environment > saved session >
 * default), the saved session, an SDK client that writes rotated tokens back, and the output.
 */
export class CliContext {
  readonly out: Output;
  readonly file: string;

  constructor(
    readonly io: CliIo,
    readonly globals: GlobalOptions,
  ) {
    this.out = new Output(io.stdout, io.stderr, globals.json === true, globals.wide ? undefined : outputWidth(io.stdout, io.env));
    this.file = sessionFile(io.env);
  }

  get terminal(): Terminal {
    return { stdin: this.io.stdin, stderr: this.io.stderr };
  }

  stored(): Promise<StoredSession | null> {
    return readStoredSession(this.file);
  }

  endpoints(stored: StoredSession | null): Endpoints {
    const { env } = this.io;
    const pick = (flag: string | undefined, envName: string, saved: string | undefined, fallback: string) =>
      flag ?? (env[envName] || undefined) ?? saved ?? fallback;
    return {
      authUrl: pick(this.globals.authUrl, "HIREBRIDGE_AUTH_URL", stored?.authUrl, DEFAULT_URLS.authUrl),
      apiUrl: pick(this.globals.apiUrl, "HIREBRIDGE_API_URL", stored?.apiUrl, DEFAULT_URLS.apiUrl),
      proxyUrl: pick(this.globals.proxyUrl, "HIREBRIDGE_PROXY_URL", stored?.proxyUrl, DEFAULT_URLS.proxyUrl),
      clientId: pick(this.globals.clientId, "HIREBRIDGE_CLIENT_ID", stored?.clientId, DEFAULT_URLS.clientId),
    };
  }

  /** Credentials from HIREBRIDGE_USERNAME / HIREBRIDGE_PASSWORD, for scripts that never run `login`. */
  envCredentials(): Credentials | undefined {
    const { HIREBRIDGE_USERNAME: username, HIREBRIDGE_PASSWORD: password } = this.io.env;
    return username && password ? { username, password } : undefined;
  }

  /**
   * An SDK client on the saved session. Every rotated refresh token is written back to the session
   * file before it is used; refreshes take a lock file and re-read the session inside it, so two
   * commands running at once never refresh with the same token.
   */
  async client(): Promise<Hirebridge> {
    const stored = await this.stored();
    const endpoints = this.endpoints(stored);
    const credentials = this.envCredentials();
    // A session belongs to the identity provider and client it came from.
    const sameIdp = stored && stored.authUrl === endpoints.authUrl && stored.clientId === endpoints.clientId;
    const session = sameIdp ? stored.session : null;
    // A service account: its secret saved by `login --client-secret-stdin`, or HIREBRIDGE_CLIENT_SECRET.
    const clientSecret = (sameIdp && stored.clientSecret) || this.io.env["HIREBRIDGE_CLIENT_SECRET"] || undefined;
    if (!session && !credentials && !clientSecret)
      throw new CliError("Not logged in: run `hirebridge login` (or set HIREBRIDGE_USERNAME and HIREBRIDGE_PASSWORD)", EXIT.AUTH);
    const persist = sameIdp ? stored : null;
    return new Hirebridge({
      ...endpoints,
      credentials,
      clientSecret,
      session: session ?? undefined,
      orgId: (sameIdp && stored.orgId) || undefined,
      ...(persist
        ? {
            onSession: (next: Session | null) => writeStoredSession(this.file, { ...persist, session: next }),
            loadSession: async () => {
              const latest = await this.stored();
              return latest && latest.authUrl === persist.authUrl ? latest.session : null;
            },
            lock: <T>(work: () => Promise<T>) => withFileLock(this.file, work),
          }
        : {}),
    });
  }

  /**
   * A Keycloak admin API client for the realm of the auth URL. The administrator logs in with
   * HIREBRIDGE_ADMIN_USERNAME (default admin) and HIREBRIDGE_ADMIN_PASSWORD or ADMIN_PASSWORD,
   * else a password prompt.
   */
  async admin(): Promise<HirebridgeAdmin> {
    const { authUrl } = this.endpoints(await this.stored());
    const { env } = this.io;
    const username = env["HIREBRIDGE_ADMIN_USERNAME"] || "admin";
    const password =
      env["HIREBRIDGE_ADMIN_PASSWORD"] || env["ADMIN_PASSWORD"] || (await this.askSecret(`Admin password for ${username}: `));
    return new HirebridgeAdmin({ authUrl, credentials: { username, password } });
  }

  /** Prompts on a terminal; refuses (rather than hanging) when there is none to ask. */
  async askSecret(prompt: string): Promise<string> {
    if (!this.io.stdin.isTTY) {
      throw new CliError(`${prompt.replace(/:\s*$/, "")} is needed: set it in the environment or pass it on stdin`, EXIT.USAGE);
    }
    const value = await readSecret(this.terminal, prompt);
    if (!value) throw new CliError("No password given", EXIT.USAGE);
    return value;
  }
}

/** The integration a command is about: its argument, else HIREBRIDGE_INTEGRATION_ID. */
export function integrationOf(ctx: Pick<CliContext, "io">, given: string | undefined): string {
  const id = given || ctx.io.env["HIREBRIDGE_INTEGRATION_ID"];
  if (!id) throw new CliError("An integration id is needed (argument, or HIREBRIDGE_INTEGRATION_ID)", EXIT.USAGE);
  return id;
}
