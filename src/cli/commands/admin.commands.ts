import type { HirebridgeAdmin, UserRepresentation } from "../../client/index.js";
import { CliError, EXIT } from "../cli-errors.js";
import type { CliContext } from "../context.js";
import type { Column } from "../output.js";
import { examples, type RegisterCommands } from "../command.js";
import { confirm, readStdin } from "../prompt.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const COLUMNS: Column<UserRepresentation>[] = [
  { header: "ID", value: (u) => u.id },
  { header: "USERNAME", value: (u) => u.username, maxWidth: 28 },
  { header: "EMAIL", value: (u) => u.email, maxWidth: 32, drop: 1 },
  { header: "ORG", value: (u) => u.attributes?.["org_id"]?.[0], id: true },
  { header: "ENABLED", value: (u) => (u.enabled ? "yes" : "no") },
];

const userFields = (u: UserRepresentation): [string, unknown][] => [
  ["id", u.id],
  ["username", u.username],
  ["email", u.email],
  ["first name", u.firstName],
  ["last name", u.lastName],
  ["organisation", u.attributes?.["org_id"]?.[0]],
  ["enabled", u.enabled],
  ["created at", new Date(u.createdTimestamp).toISOString()],
];

/** A user named by id or by username. */
async function resolveUser(admin: HirebridgeAdmin, idOrName: string): Promise<UserRepresentation> {
  if (UUID.test(idOrName)) return admin.users.get(idOrName);
  const user = await admin.users.findByUsername(idOrName);
  if (!user) throw new CliError(`No user ${JSON.stringify(idOrName)}`, EXIT.NOT_FOUND);
  return user;
}

/** A new password: from stdin (--password-stdin), else asked twice without echo. */
async function newPassword(ctx: CliContext, fromStdin: boolean, who: string): Promise<string> {
  if (fromStdin) {
    const password = await readStdin(ctx.io.stdin);
    if (!password) throw new CliError("--password-stdin: stdin was empty", EXIT.USAGE);
    return password;
  }
  const first = await ctx.askSecret(`New password for ${who}: `);
  const second = await ctx.askSecret("Repeat it: ");
  if (first !== second) throw new CliError("The passwords differ", EXIT.USAGE);
  return first;
}

export const registerAdminCommands: RegisterCommands = (program, run) => {
  const admin = program
    .command("admin")
    .description(
      "Administration through the identity provider's (Keycloak) admin API. Admin login: HIREBRIDGE_ADMIN_PASSWORD or ADMIN_PASSWORD, else asked.",
    );
  const users = admin.command("users").description("Users of the realm and their organisations.");

  const list = users
    .command("list")
    .description("List or search users.")
    .option("--username <name>", "users whose username contains this")
    .option("--email <email>", "users whose email contains this")
    .option("--search <text>", "users whose username, email or name contains this")
    .option("--max <n>", "at most this many (default 100)")
    .action(
      run(async (ctx, _args, opts) => {
        const query = {
          ...(opts["username"] ? { username: opts["username"] as string } : {}),
          ...(opts["email"] ? { email: opts["email"] as string } : {}),
          ...(opts["search"] ? { search: opts["search"] as string } : {}),
          ...(opts["max"] ? { max: Number(opts["max"]) } : {}),
        };
        ctx.out.table(await (await ctx.admin()).users.list(query), COLUMNS);
      }),
    );
  examples(list, ["ADMIN_PASSWORD=admin-password hirebridge admin users list", "hirebridge admin users list --search acme"]);

  const show = users
    .command("show")
    .description("Show a user (by id or username).")
    .argument("<user>")
    .action(
      run(async (ctx, [who]) => {
        const user = await resolveUser(await ctx.admin(), who!);
        ctx.out.record(user, userFields(user));
      }),
    );
  examples(show, ["hirebridge admin users show lin"]);
  registerUserCreateCommands(users, run);
  registerUserEndCommands(users, run);
};

/** `admin users create` and `reset-password`. */
const registerUserCreateCommands: RegisterCommands = (users, run) => {
  const create = users
    .command("create")
    .description("Create a user in an organisation, with a password.")
    .argument("<username>")
    .requiredOption("--org <org-id>", "the organisation (becomes the org_id claim of the user's tokens)")
    .option("--email <email>")
    .option("--first-name <name>")
    .option("--last-name <name>")
    .option("--password-stdin", "read the new password from stdin; else it is asked twice")
    .option("--temporary", "the user must change the password at first login")
    .action(
      run(async (ctx, [username], opts) => {
        const adminClient = await ctx.admin();
        const password = await newPassword(ctx, opts["passwordStdin"] === true, username!);
        const { id } = await adminClient.users.create({
          username: username!,
          orgId: opts["org"] as string,
          email: opts["email"] as string | undefined,
          firstName: opts["firstName"] as string | undefined,
          lastName: opts["lastName"] as string | undefined,
          password,
          temporaryPassword: opts["temporary"] === true,
        });
        const user = await adminClient.users.get(id);
        ctx.out.record(user, userFields(user));
      }),
    );
  examples(create, [
    "hirebridge admin users create lin --org 6d3f1e2a-9b4c-4f7e-8a1d-2c5b7e9f0a13 --email lin@example.com",
    'printf "%s" "$NEW_PASSWORD" | ADMIN_PASSWORD=admin-password hirebridge admin users create lin --org 6d3f… --password-stdin',
  ]);

  const reset = users
    .command("reset-password")
    .description("Set a user's password.")
    .argument("<user>")
    .option("--password-stdin", "read the new password from stdin; else it is asked twice")
    .option("--temporary", "the user must change it at next login")
    .action(
      run(async (ctx, [who], opts) => {
        const adminClient = await ctx.admin();
        const user = await resolveUser(adminClient, who!);
        await adminClient.users.resetPassword(user.id, await newPassword(ctx, opts["passwordStdin"] === true, user.username), {
          temporary: opts["temporary"] === true,
        });
        ctx.out.result({ id: user.id, password_reset: true }, () => `Password of ${user.username} changed.`);
      }),
    );
  examples(reset, ["hirebridge admin users reset-password lin"]);
};

/** `admin users logout` and `delete`. */
const registerUserEndCommands: RegisterCommands = (users, run) => {
  const logout = users
    .command("logout")
    .description("End every session of a user (their refresh tokens stop working).")
    .argument("<user>")
    .action(
      run(async (ctx, [who]) => {
        const adminClient = await ctx.admin();
        const user = await resolveUser(adminClient, who!);
        await adminClient.users.logout(user.id);
        ctx.out.result({ id: user.id, logged_out: true }, () => `Sessions of ${user.username} ended.`);
      }),
    );
  examples(logout, ["hirebridge admin users logout lin"]);

  const remove = users
    .command("delete")
    .description("Delete a user; asks for confirmation unless --yes.")
    .argument("<user>")
    .option("-y, --yes", "do not ask")
    .action(
      run(async (ctx, [who], opts) => {
        const adminClient = await ctx.admin();
        const user = await resolveUser(adminClient, who!);
        if (opts["yes"] !== true && !(await confirm(ctx.terminal, `Delete user ${user.username} (${user.id})?`))) {
          throw new CliError("Not deleted: not confirmed (pass --yes to skip the question)", EXIT.FAILURE);
        }
        await adminClient.users.delete(user.id);
        ctx.out.result({ id: user.id, deleted: true }, () => `Deleted user ${user.username}.`);
      }),
    );
  examples(remove, ["hirebridge admin users delete lin --yes"]);
};
