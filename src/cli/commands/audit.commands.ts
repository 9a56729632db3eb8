import type { AuditEntryView } from "../../contracts/recruiting/audit-log.js";
import type { AuditListQuery } from "../../client/recruiting/audit-log.js";
import { CliError, EXIT } from "../cli-errors.js";
import { examples, type RegisterCommands } from "../command.js";
import type { Column } from "../output.js";

const score = (e: AuditEntryView) =>
  e.score_before === null && e.score_after === null ? "" : `${e.score_before ?? "-"} → ${e.score_after ?? "-"}`;

const COLUMNS: Column<AuditEntryView>[] = [
  { header: "SEQ", value: (e) => e.seq },
  { header: "AT", value: (e) => e.occurred_at.replace(/\.\d+Z$/, "Z"), min: 20 },
  // The actor's `sub` is an id (a user or a service account): whole, its client beside it when there is one.
  { header: "ACTOR", value: (e) => e.actor.sub, id: true },
  { header: "CLIENT", value: (e) => e.actor.client_id, maxWidth: 28, drop: 3 },
  { header: "ACTION", value: (e) => e.action, min: 18 },
  { header: "RESOURCE", value: (e) => e.resource_ids[0] ?? "", id: true, drop: 1 },
  { header: "SCORE", value: score, drop: 2 },
];

/** The list's filters from the options (times checked here: a usage error, not a 422). */
function queryOf(opts: Record<string, unknown>): AuditListQuery {
  const query: AuditListQuery = {};
  for (const [option, field] of [
    ["actor", "actor"],
    ["action", "action"],
    ["resourceType", "resource_type"],
    ["resource", "resource_id"],
  ] as const) {
    if (opts[option] !== undefined) query[field] = String(opts[option]);
  }
  for (const t of ["since", "until"] as const) {
    if (opts[t] === undefined) continue;
    const at = Date.parse(String(opts[t]));
    if (Number.isNaN(at)) throw new CliError(`--${t} must be a date and time`, EXIT.USAGE);
    query[t] = new Date(at).toISOString();
  }
  return query;
}

export const registerAuditCommands: RegisterCommands = (program, run) => {
  const audit = program
    .command("audit")
    .description("Your organisation's audit log: who changed what, append-only and hash-chained (docs/privacy.md).");

  const list = audit
    .command("list", { isDefault: true })
    .description("List the entries, newest first: time, actor, action, the resource's id and, for gradings, the score before and after.")
    .option("--actor <sub-or-client>", "only this actor (a token sub or a client id)")
    .option("--action <action>", "only this action, e.g. interview.corrected")
    .option("--resource-type <type>", "only this resource type, e.g. candidate")
    .option("--resource <id>", "only entries naming this id")
    .option("--since <time>", "from this time on (ISO 8601)")
    .option("--until <time>", "up to this time")
    .option("--limit <n>", "at most this many entries", "50")
    .action(
      run(async (ctx, _args, opts) => {
        const limit = Number(opts["limit"]);
        if (!Number.isInteger(limit) || limit < 1) throw new CliError("--limit must be a whole number of 1 or more", EXIT.USAGE);
        const hb = await ctx.client();
        const items: AuditEntryView[] = [];
        for await (const entry of hb.audit.iterate({ ...queryOf(opts), limit: Math.min(limit, 1000) })) {
          items.push(entry);
          if (items.length >= limit) break;
        }
        ctx.out.table(items, COLUMNS);
      }),
    );
  examples(list, [
    "hirebridge audit list --action interview.corrected",
    "hirebridge audit --resource 0193… --since 2025-06-01T00:00:00Z",
    "hirebridge --json audit list --limit 1000 > audit.json",
  ]);

  const verify = audit
    .command("verify")
    .description("Walk the hash chain; exits 1 naming the first entry changed or removed in the database.")
    .action(
      run(async (ctx) => {
        const report = await (await ctx.client()).audit.verify();
        ctx.out.result(report, () =>
          report.ok
            ? `The audit log holds: ${report.checked} entries checked${report.first_seq === null ? "" : ` (${report.first_seq}..${report.last_seq})`}.`
            : `The audit log is broken at entry ${report.broken!.seq}${report.broken!.id ? ` (${report.broken!.id})` : ""}: ${report.broken!.reason}.`,
        );
        return report.ok ? EXIT.OK : EXIT.FAILURE;
      }),
    );
  examples(verify, ["hirebridge audit verify", "hirebridge --json audit verify | jq .broken"]);
};
