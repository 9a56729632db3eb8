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

export const registerAuthCommands: RegisterCommands = (program, run) => {
  const login = program
    .command("login")
    .description("Log in with username and password and keep the session (file mode 0600) in the config directory.")
    .option("-u, --username <name>", "username (env HIREBRIDGE_USERNAME; else the last one used, else asked)")
    .option("--password-stdin", "read the password from stdin (for scripts); else HIREBRIDGE_PASSWORD, else a prompt without echo")
    .action(
      run(async (ctx, _args, opts) => {
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
