import { ACTIVITY_KINDS, ACTIVITY_STATUSES, type ActivityItem, type ActivityQuery } from "../../contracts/proxy/activity.js";
import { CliError, EXIT } from "../cli-errors.js";
import { integrationOf } from "../context.js";
import type { Column } from "../output.js";
import { examples, type RegisterCommands } from "../command.js";

/** A timestamp to the second (the table's; --json keeps the API's own). */
const second = (at: string) => at.replace(/\.\d+Z$/, "Z");

const COLUMNS: Column<ActivityItem>[] = [
  { header: "AT", value: (i) => second(i.at), min: 20 },
  { header: "KIND", value: (i) => i.kind },
  { header: "STATUS", value: (i) => i.status },
  // Cut below 24 characters WHAT says nothing: a narrower terminal gets one record per block.
  { header: "WHAT", value: (i) => i.summary, maxWidth: 72, min: 24 },
  { header: "ERROR", value: (i) => i.error, maxWidth: 48, drop: 2 },
  { header: "TRIES", value: (i) => i.attempts, drop: 1 },
  { header: "ID", value: (i) => i.id },
];

/** A comma-separated option checked against its values, as the API would (a clear usage error instead of a 422). */
function listOption(value: unknown, allowed: readonly string[], name: string): string | undefined {
  if (value === undefined) return undefined;
  const parts = String(value)
    .split(",")
    .map((p) => p.trim().toLowerCase().replace(/-/g, "_"));
  const bad = parts.filter((p) => !allowed.includes(p));
  if (bad.length) throw new CliError(`--${name} takes ${allowed.join(", ")} (comma-separated); not ${bad.join(", ")}`, EXIT.USAGE);
  return parts.join(",");
}

/** The query the options ask for. */
function queryOf(opts: Record<string, unknown>): Omit<ActivityQuery, "cursor"> {
  const text = (k: string) => (opts[k] === undefined ? undefined : String(opts[k]));
  const query: Omit<ActivityQuery, "cursor"> = {};
  const kind = listOption(opts["kind"], ACTIVITY_KINDS, "kind");
  const status = listOption(opts["status"], ACTIVITY_STATUSES, "status");
  if (kind) query.kind = kind;
  if (status) query.status = status;
  for (const [option, field] of [
    ["since", "since"],
    ["until", "until"],
    ["candidate", "candidate_id"],
    ["position", "position_id"],
  ] as const) {
    const v = text(option);
    if (v !== undefined) query[field] = field === "since" || field === "until" ? new Date(v).toISOString() : v;
  }
  return query;
}

export const registerActivityCommands: RegisterCommands = (program, run) => {
  const activity = program
    .command("activity")
    .description("An integration's trail: webhook events, sync runs, write-backs and failed upstream calls, newest first, with names.");

  examples(activity, ["hirebridge activity greenhouse:8d1h… --status failed", "hirebridge activity retry 0193… greenhouse:8d1h…"]);

  const list = activity
    .command("list", { isDefault: true })
    .description("List the trail (the default): what happened, with the names of what it touched, its error and its id.")
    .argument("[integration-id]", "default HIREBRIDGE_INTEGRATION_ID")
    .option("--kind <kinds>", `only these kinds: ${ACTIVITY_KINDS.join(", ")} (comma-separated)`)
    .option("--status <states>", "only these states, e.g. failed (comma-separated)")
    .option("--since <time>", "from this time on (ISO 8601, e.g. 2025-06-01T08:00:00Z)")
    .option("--until <time>", "before this time")
    .option("--candidate <candidate-id>", "one candidate's history (its write-backs and their failed calls)")
    .option("--position <position-id>", "one position's history")
    .option("--limit <n>", "at most this many items", "50")
    .action(
      run(async (ctx, [given], opts) => {
        const integration = integrationOf(ctx, given);
        const limit = Number(opts["limit"]);
        if (!Number.isInteger(limit) || limit < 1) throw new CliError("--limit must be a whole number of 1 or more", EXIT.USAGE);
        for (const t of ["since", "until"]) {
          if (opts[t] !== undefined && Number.isNaN(Date.parse(String(opts[t]))))
            throw new CliError(`--${t} must be a date and time`, EXIT.USAGE);
        }
        const hb = await ctx.client();
        const items: ActivityItem[] = [];
        for await (const item of hb.activity.iterate(integration, { ...queryOf(opts), limit: Math.min(limit, 200) })) {
          items.push(item);
          if (items.length >= limit) break;
        }
        ctx.out.table(items, COLUMNS);
      }),
    );
  examples(list, [
    "hirebridge activity list greenhouse:8d1h…",
    "hirebridge activity greenhouse:8d1h…",
    "hirebridge activity greenhouse:8d1h… --status failed",
    "hirebridge activity greenhouse:8d1h… --kind write_back,upstream_call --candidate 0193…",
    "hirebridge --json activity greenhouse:8d1h… --since 2025-06-01T00:00:00Z | jq '.[].summary'",
  ]);

  const retry = activity
    .command("retry")
    .description(
      "Retry a failed write-back of the trail (the steps it did are not repeated), or with --event re-drive a failed webhook event.",
    )
    .argument("<id>", "the write-back's id (or the event's, with --event)")
    .argument("[integration-id]", "default HIREBRIDGE_INTEGRATION_ID (not needed with --event)")
    .option("--event", "the id is a failed webhook event's: its work runs again")
    .action(
      run(async (ctx, [id, given], opts) => {
        const hb = await ctx.client();
        if (opts["event"] === true) {
          const event = await hb.webhookEvents.redrive(id!);
          ctx.out.result(event, () => `Event ${event.id} (${event.type}) is ${event.status} again.`);
          return;
        }
        const wb = await hb.activity.retryWriteBack(integrationOf(ctx, given), id!);
        ctx.out.result(
          wb,
          () =>
            `Write-back ${wb.id} (${wb.candidate_name ?? wb.candidate_id}, ${wb.position_name ?? wb.position_id}) is ${wb.state} again.`,
        );
      }),
    );
  examples(retry, ["hirebridge activity retry 0193… greenhouse:8d1h…", "hirebridge activity retry evt_3f2a… --event"]);
};
