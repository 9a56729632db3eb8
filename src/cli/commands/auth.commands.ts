import { Hirebridge } from "../../client/index.js";
import { decodeJwtPayload } from "../../client/core/jwt.js";
import { CliError, EXIT } from "../cli-errors.js";
import type { CliContext } from "../context.js";
import { examples, type RegisterCommands } from "../command.js";
import { readLine, readStdin } from "../prompt.js";
import { deleteStoredSession, writeStoredSession } from "../session-store.js";

const iso = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString() : null);

/** The password for `login`: stdin (--password-stdin), HIREBRIDGE_PASSWORD, or a prompt without echo. */
async function loginPassword(ctx: CliContext, username: string, fromStdin: boolean): Promise<string> {
  if (fromStdin) {
    const password = await readStdin(ctx.io.stdin);
    if (!password) throw new CliError("--password-stdin: stdin was empty", EXIT.USAGE);
    return password;
  }
  return ctx.io.env["HIREBRIDGE_PASSWORD"] || ctx.askSecret(`Password for ${username}: `);
}

/**
 * `login --client-id <id> --client-secret-stdin`: a service account's client credentials grant. The
 * secret is kept in the session file (0600) beside the token: with no refresh token, each new token
 * is obtained with it.
 */
async function serviceAccountLogin(ctx: CliContext): Promise<void> {
  const endpoints = ctx.endpoints(null);
  if (!ctx.globals.clientId && !ctx.io.env["HIREBRIDGE_CLIENT_ID"]) {
    throw new CliError("--client-secret-stdin needs --client-id <id> (the service account's client id)", EXIT.USAGE);
  }
  const clientSecret = await readStdin(ctx.io.stdin);
  if (!clientSecret) throw new CliError("--client-secret-stdin: stdin was empty", EXIT.USAGE);
  const session = await new Hirebridge({ ...endpoints, clientSecret }).login();
  const claims = decodeJwtPayload(session.accessToken) ?? {};
  const orgId = typeof claims.org_id === "string" ? claims.org_id : null;
  const username = typeof claims["preferred_username"] === "string" ? claims["preferred_username"] : endpoints.clientId;
  await writeStoredSession(ctx.file, { version: 1, ...endpoints, clientSecret, username, orgId, session });
  const result = {
    client_id: endpoints.clientId,
    org_id: orgId,
    auth_url: endpoints.authUrl,
    session_file: ctx.file,
    access_expires_at: iso(session.accessExpiresAt),
  };
  ctx.out.result(
    result,
    () =>
      `Logged in to ${endpoints.authUrl} as service account ${endpoints.clientId}${orgId ? ` (organisation ${orgId})` : ""}.\nCredentials saved in ${ctx.file}.`,
  );
}

export const registerAuthCommands: RegisterCommands = (program, run) => {
  const login = program
    .command("login")
    .description("Log in with username and password and keep the session (file mode 0600) in the config directory.")
    .option("-u, --username <name>", "username (env HIREBRIDGE_USERNAME; else the last one used, else asked)")
    .option("--password-stdin", "read the password from stdin (for scripts); else HIREBRIDGE_PASSWORD, else a prompt without echo")
    .option("--client-secret-stdin", "log in as the service account --client-id, its secret read from stdin (for scripts)")
    .action(
      run(async (ctx, _args, opts) => {
        if (opts["clientSecretStdin"] === true) return serviceAccountLogin(ctx);
        const stored = await ctx.stored();
        const endpoints = ctx.endpoints(stored);
        let username = (opts["username"] as string | undefined) || ctx.io.env["HIREBRIDGE_USERNAME"] || stored?.username;
        if (!username) {
          if (!ctx.io.stdin.isTTY || opts["passwordStdin"]) throw new CliError("--username is needed", EXIT.USAGE);
          username = (await readLine(ctx.terminal, "Username: ")).trim();
        }
        const password = await loginPassword(ctx, username, opts["passwordStdin"] === true);
        const hb = new Hirebridge({ ...endpoints, credentials: { username, password } });
        const session = await hb.login();
        const orgId = decodeJwtPayload(session.accessToken)?.org_id ?? null;
        await writeStoredSession(ctx.file, {
          version: 1,
          ...endpoints,
          username,
          orgId: typeof orgId === "string" ? orgId : null,
          session,
        });
        const result = {
          username,
          org_id: orgId,
          auth_url: endpoints.authUrl,
          session_file: ctx.file,
          access_expires_at: iso(session.accessExpiresAt),
          refresh_expires_at: iso(session.refreshExpiresAt),
        };
        ctx.out.result(
          result,
          () =>
            `Logged in to ${endpoints.authUrl} as ${username}${orgId ? ` (organisation ${orgId})` : ""}.\nSession saved in ${ctx.file}.`,
        );
      }),
    );
  examples(login, [
    "hirebridge login --username demo",
    'echo "$PASSWORD" | hirebridge login --username demo --password-stdin',
    "HIREBRIDGE_PASSWORD=demo-password hirebridge login -u demo --auth-url https://id.example.com/realms/hirebridge",
    'echo "$CLIENT_SECRET" | hirebridge login --client-id sa-… --client-secret-stdin',
  ]);
  registerSessionCommands(program, run);
};

/** `logout` and `whoami`: the saved session. */
const registerSessionCommands: RegisterCommands = (program, run) => {
  const logout = program
    .command("logout")
    .description("End the session at the identity provider and delete the saved session.")
    .action(
      run(async (ctx) => {
        const stored = await ctx.stored();
        if (stored?.session) {
          const hb = await ctx.client();
          // The session file goes whatever the identity provider says: the user asked to forget it.
          await hb
            .logout()
            .catch((err: unknown) => ctx.out.note(`warning: the identity provider did not confirm the logout (${(err as Error).message})`));
        }
        const removed = await deleteStoredSession(ctx.file);
        ctx.out.result({ logged_out: removed }, () => (removed ? "Logged out." : "Not logged in."));
      }),
    );
  examples(logout, ["hirebridge logout"]);

  const whoami = program
    .command("whoami")
    .description("Show who is logged in, where, and until when (refreshing the session if it is due).")
    .action(
      run(async (ctx) => {
        const stored = await ctx.stored();
        const hb = await ctx.client();
        await hb.auth.getAccessToken(); // proves the session still works; refreshes and saves if due
        const session = hb.auth.current!;
        const claims = decodeJwtPayload(session.accessToken) ?? {};
        const endpoints = ctx.endpoints(stored);
        const result = {
          username: (claims["preferred_username"] as string | undefined) ?? stored?.username ?? null,
          org_id: claims.org_id ?? null,
          auth_url: endpoints.authUrl,
          api_url: endpoints.apiUrl,
          proxy_url: endpoints.proxyUrl,
          access_expires_at: iso(session.accessExpiresAt),
          refresh_expires_at: iso(session.refreshExpiresAt),
        };
        ctx.out.record(result, Object.entries(result));
      }),
    );
  examples(whoami, ["hirebridge whoami", "hirebridge --json whoami"]);
};
