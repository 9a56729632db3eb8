import { SERVICE_ACCOUNT_SCOPES, type ServiceAccount, type ServiceAccountScope } from "../../contracts/service-accounts/index.js";
import { CliError, EXIT } from "../cli-errors.js";
import { examples, type RegisterCommands } from "../command.js";
import type { Column } from "../output.js";
import { confirm } from "../prompt.js";

const COLUMNS: Column<ServiceAccount>[] = [
  { header: "CLIENT ID", value: (a) => a.client_id, id: true },
  { header: "NAME", value: (a) => a.name, maxWidth: 30, drop: 2 },
  { header: "SCOPES", value: (a) => (a.scopes.length ? a.scopes : "all") },
  { header: "STATE", value: (a) => (a.revoked_at ? "revoked" : "active") },
  { header: "LAST USED", value: (a) => a.last_used_at ?? "never", drop: 1 },
  { header: "ID", value: (a) => a.id, drop: 3 },
];

/** `--scopes read,recruiting` as scopes (each checked). */
function scopesOf(value: unknown): ServiceAccountScope[] | undefined {
  if (value === undefined) return undefined;
  const scopes = String(value)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !SERVICE_ACCOUNT_SCOPES.includes(s as ServiceAccountScope));
  if (unknown.length) throw new CliError(`Unknown scope ${unknown.join(", ")} (scopes: ${SERVICE_ACCOUNT_SCOPES.join(", ")})`, EXIT.USAGE);
  return scopes as ServiceAccountScope[];
}

export const registerServiceAccountCommands: RegisterCommands = (program, run) => {
  const accounts = program
    .command("service-accounts")
    .description(
      "Your organisation's service accounts: client credentials for machines (hirebridge login --client-id … --client-secret-stdin).",
    );

  const list = accounts
    .command("list")
    .description("List the service accounts with when each last obtained a token.")
    .action(
      run(async (ctx) => {
        const { items } = await (await ctx.client()).serviceAccounts.list();
        ctx.out.table(items, COLUMNS);
      }),
    );
  examples(list, ["hirebridge service-accounts list"]);

  const create = accounts
    .command("create")
    .description("Create a service account; its client secret is shown this once.")
    .requiredOption("--name <name>", "what the machine is, e.g. 'interview runner'")
    .option("--scopes <scopes>", "comma-separated limits: read (GET only), recruiting (not the proxy); default none")
    .action(
      run(async (ctx, _args, opts) => {
        const scopes = scopesOf(opts["scopes"]);
        const account = await (await ctx.client()).serviceAccounts.create({ name: String(opts["name"]), ...(scopes ? { scopes } : {}) });
        ctx.out.record(account, Object.entries(account));
        ctx.out.note("Keep the client secret now: it is not shown again (rotate makes a new one).");
      }),
    );
  examples(create, [
    "hirebridge service-accounts create --name 'interview runner' --scopes recruiting",
    "hirebridge --json service-accounts create --name reporting --scopes read | jq -r .client_secret",
  ]);

  const rotate = accounts
    .command("rotate")
    .description("Replace a service account's secret; the old one stops working at once.")
    .argument("<account-id>")
    .action(
      run(async (ctx, [id]) => {
        const account = await (await ctx.client()).serviceAccounts.rotateSecret(id!);
        ctx.out.record(account, Object.entries(account));
        ctx.out.note("Keep the new client secret now: it is not shown again.");
      }),
    );
  examples(rotate, ["hirebridge service-accounts rotate <account-id>"]);

  const revoke = accounts
    .command("revoke")
    .description("Revoke a service account: its next token request fails; its tokens expire as usual. Asks unless --yes.")
    .argument("<account-id>")
    .option("-y, --yes", "do not ask")
    .action(
      run(async (ctx, [id], opts) => {
        if (opts["yes"] !== true && !(await confirm(ctx.terminal, `Revoke service account ${id}? This cannot be undone.`))) {
          throw new CliError("Not revoked: not confirmed (pass --yes to skip the question)", EXIT.FAILURE);
        }
        const account = await (await ctx.client()).serviceAccounts.revoke(id!);
        ctx.out.record(account, Object.entries(account));
      }),
    );
  examples(revoke, ["hirebridge service-accounts revoke <account-id> --yes"]);
};
