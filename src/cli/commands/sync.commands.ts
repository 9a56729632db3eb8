import type { WebhookEventRecord } from "../../contracts/proxy/webhook-events.js";
import type { SyncRun, SyncRunEntry, WriteBack } from "../../contracts/proxy/webhooks.js";
import { CliError, EXIT } from "../cli-errors.js";
import { integrationOf } from "../context.js";
import { fit, outputWidth, type Column } from "../output.js";
import { examples, type RegisterCommands } from "../command.js";

/** A timestamp to the second (the table's; --json keeps the API's own). */
const second = (at: string | null) => at?.replace(/\.\d+Z$/, "Z") ?? null;

/** A run as `sync start` follows it, or as the history lists it (with the quiet runs folded into it). */
type Run = SyncRun & { quiet_runs?: SyncRunEntry["quiet_runs"] };

const RUN_COLUMNS: Column<Run>[] = [
  { header: "RUN", value: (r) => r.id, drop: 1, id: true },
  { header: "MODEL", value: (r) => r.model },
  { header: "TYPE", value: (r) => r.type },
  { header: "TRIGGER", value: (r) => r.trigger, maxWidth: 20, drop: 4 },
  { header: "STATE", value: (r) => r.state },
  { header: "PAGES", value: (r) => r.pages, drop: 3 },
  { header: "CREATED", value: (r) => r.created },
  { header: "UPDATED", value: (r) => r.updated },
  { header: "UNLINKED", value: (r) => r.unlinked, drop: 6 },
  { header: "SKIPPED", value: (r) => r.skipped, drop: 5 },
  { header: "FAILED", value: (r) => r.failed },
  { header: "STARTED", value: (r) => second(r.started_at), min: 20 },
  { header: "MS", value: (r) => r.duration_ms, drop: 2 },
  { header: "QUIET", value: (r) => r.quiet_runs?.count ?? null, drop: 7 },
];

/** Under the runs: how many quiet runs the history folded (still counted, never dropped from sight). */
const quietLine = (runs: SyncRunEntry[]) => {
  const n = runs.reduce((sum, r) => sum + (r.quiet_runs?.count ?? 0), 0);
  return n === 0 ? [] : [`${n} quiet run${n === 1 ? "" : "s"} (changed nothing) folded in: QUIET; --include-quiet lists them`];
};

/**
 * Interview results written back to the ATS (stage move, result link, note), newest first. At 80
 * columns the names stay (candidate, position, stage) with the outcome and state; ids, tries, the
 * time and the error leave first.
 */
const WRITE_BACK_COLUMNS: Column<WriteBack>[] = [
  { header: "CANDIDATE", value: (w) => w.candidate_name, maxWidth: 24 },
  { header: "CANDIDATE ID", value: (w) => w.candidate_id, drop: 6, id: true },
  { header: "POSITION", value: (w) => w.position_name, maxWidth: 24, drop: 1 },
  { header: "APPLICATION", value: (w) => w.application_id, drop: 5, id: true },
  { header: "OUTCOME", value: (w) => w.outcome },
  { header: "STAGE", value: (w) => w.target_stage_name ?? w.target_stage, maxWidth: 24 },
  { header: "STATE", value: (w) => w.state },
  { header: "TRIES", value: (w) => w.attempts, drop: 4 },
  { header: "ERROR", value: (w) => w.last_error, maxWidth: 40, drop: 2 },
  { header: "CREATED", value: (w) => second(w.created_at), drop: 3 },
];

const progressLine = (runs: SyncRun[]) =>
  runs
    .map(
      (r) =>
        `${r.model} ${r.state}: ${r.pages} page(s), ${r.created} created, ${r.updated} updated, ${r.skipped} skipped, ${r.failed} failed`,
    )
    .join(" | ") || "waiting for the run…";

const TYPES = ["JOBS", "APPLICATIONS"] as const;

export const registerSyncCommands: RegisterCommands = (program, run) => {
  const sync = program
    .command("sync")
    .description("Hirebridge's sync of an integration's jobs and applications into positions and candidates.");

  const start = sync
    .command("start")
    .description("Sync jobs, then applications, following each run with a progress display until it ends (exit 1 if a run fails).")
    .argument("[integration-id]", "default HIREBRIDGE_INTEGRATION_ID")
    .option("--only <model>", "JOBS or APPLICATIONS (default both, jobs first)")
    .option("--no-follow", "start it and return at once")
    .option("--interval <seconds>", "how often to poll for progress", "1")
    .action(
      run(async (ctx, [given], opts) => {
        const integration = integrationOf(ctx, given);
        const only = opts["only"] === undefined ? undefined : String(opts["only"]).toUpperCase();
        if (only !== undefined && !TYPES.includes(only as (typeof TYPES)[number]))
          throw new CliError("--only must be JOBS or APPLICATIONS", EXIT.USAGE);
        const type = only as (typeof TYPES)[number] | undefined;
        const interval = Number(opts["interval"]);
        if (!(interval > 0)) throw new CliError("--interval must be a positive number of seconds", EXIT.USAGE);
        const hb = await ctx.client();
        if (opts["follow"] === false) {
          const started = await hb.sync.start(integration, { type });
          ctx.out.result(started, () => `Sync started: run ${started.message}. Follow it with: hirebridge sync status ${integration}`);
          return;
        }
        const live = ctx.io.stderr.isTTY === true && !ctx.out.json;
        let runs: SyncRun[] = [];
        let announced = false;
        // Model by model (jobs, then applications), each run followed to its end.
        // One column short of the terminal's width: a line that reaches the last column wraps on
        // some terminals, and the next redraw would leave its first half behind.
        const lineWidth = Math.max(20, (outputWidth(ctx.io.stderr, ctx.io.env) ?? 80) - 1);
        for await (const snapshot of hb.sync.run(integration, { type, pollIntervalMs: interval * 1000 })) {
          // Said once the proxy accepted the start: an unknown integration gets its 404's message, never "started".
          if (!announced) ctx.out.note(`Sync of ${integration} started.`);
          announced = true;
          runs = snapshot;
          // On a terminal one line is redrawn; in logs every change is its own line.
          if (live) ctx.io.stderr.write(`\r\u001b[2K${fit(progressLine(runs), lineWidth)}`);
          else if (!ctx.out.json) ctx.out.note(progressLine(runs));
        }
        if (live) ctx.io.stderr.write("\n");
        ctx.out.table(runs, RUN_COLUMNS);
        const bad = runs.find((r) => r.state !== "succeeded");
        if (bad) {
          ctx.out.note(`hirebridge: sync run ${bad.id} (${bad.model}) ${bad.state}${bad.last_error ? `: ${bad.last_error}` : ""}`);
          return EXIT.FAILURE;
        }
      }),
    );
  examples(start, [
    "hirebridge sync start greenhouse:8d1h…",
    "hirebridge sync start greenhouse:8d1h… --only JOBS",
    "hirebridge --json sync start greenhouse:8d1h… > runs.json",
  ]);
  registerSyncStatusCommands(sync, run);
};

/** `sync status` and `sync upstream`, and the stored webhook events. */
const registerSyncStatusCommands: RegisterCommands = (sync, run) => {
  const status = sync
    .command("status")
    .description("Recent sync runs of an integration and the interview results written back to its ATS (newest first).")
    .argument("[integration-id]", "default HIREBRIDGE_INTEGRATION_ID")
    .option("--limit <n>", "how many runs (1-100, default 20)")
    .option("--include-quiet", "list the incremental runs that changed nothing one by one (by default they are folded and counted)")
    .action(
      run(async (ctx, [given], opts) => {
        const integration = integrationOf(ctx, given);
        const answer = await (await ctx.client()).sync.runs(integration, {
          ...(opts["limit"] ? { limit: Number(opts["limit"]) } : {}),
          ...(opts["includeQuiet"] ? { include_quiet: true } : {}),
        });
        ctx.out.result(answer, () =>
          [
            "Sync runs",
            ctx.out.rows(RUN_COLUMNS, answer.items),
            ...quietLine(answer.items),
            "",
            "Write-backs (interview results sent to the ATS)",
            ctx.out.rows(WRITE_BACK_COLUMNS, answer.write_backs),
          ].join("\n"),
        );
      }),
    );
  examples(status, ["hirebridge sync status greenhouse:8d1h…", "hirebridge --json sync status greenhouse:8d1h… | jq '.items[0].state'"]);

  const upstream = sync
    .command("upstream")
    .description(
      "Ask the upstream ATS API to sync the integration (FULL or DELTA); Hirebridge follows when the upstream reports it finished.",
    )
    .argument("[integration-id]", "default HIREBRIDGE_INTEGRATION_ID")
    .option("--type <type>", "FULL or DELTA (default DELTA)")
    .action(
      run(async (ctx, [given], opts) => {
        const integration = integrationOf(ctx, given);
        const type = opts["type"] === undefined ? undefined : String(opts["type"]).toUpperCase();
        if (type !== undefined && type !== "FULL" && type !== "DELTA") throw new CliError("--type must be FULL or DELTA", EXIT.USAGE);
        const answer = await (await ctx.client()).general.forceSync(integration, type ? { type } : {});
        ctx.out.result(
          answer,
          () =>
            `Upstream ${answer.data.type} sync ${answer.data.already_queued ? "was already queued" : "queued"} (sync id ${answer.data.sync_id}).`,
        );
      }),
    );
  examples(upstream, ["hirebridge sync upstream greenhouse:8d1h… --type FULL"]);
  registerEventCommands(sync, run);
};

const EVENT_COLUMNS: Column<WebhookEventRecord>[] = [
  { header: "EVENT", value: (e) => e.id, id: true },
  { header: "TYPE", value: (e) => e.type },
  { header: "INTEGRATION", value: (e) => e.integration_id, maxWidth: 30, drop: 3 },
  { header: "STATUS", value: (e) => e.status },
  { header: "TRIES", value: (e) => e.attempts, drop: 2 },
  { header: "ERROR", value: (e) => e.last_error ?? e.message, maxWidth: 50, drop: 1 },
  { header: "RECEIVED", value: (e) => second(e.received_at), min: 20 },
];
const EVENT_STATUSES = ["queued", "processed", "failed", "ignored"] as const;

/** `sync events` (the stored webhook events, failed ones by default) and `sync redrive` (one failed event again). */
const registerEventCommands: RegisterCommands = (sync, run) => {
  const events = sync
    .command("events")
    .description("Webhook events the upstream delivered for your organisation, newest first: the failed ones by default, with their error.")
    .option("--status <status>", "queued, processed, failed or ignored (default failed)")
    .option("--integration <integration-id>", "only this integration's events")
    .option("--limit <n>", "how many (1-200, default 50)")
    .action(
      run(async (ctx, _args, opts) => {
        const status = opts["status"] === undefined ? undefined : String(opts["status"]).toLowerCase();
        if (status !== undefined && !EVENT_STATUSES.includes(status as (typeof EVENT_STATUSES)[number]))
          throw new CliError("--status must be queued, processed, failed or ignored", EXIT.USAGE);
        const answer = await (await ctx.client()).webhookEvents.list({
          ...(status ? { status: status as (typeof EVENT_STATUSES)[number] } : {}),
          ...(opts["integration"] ? { integration_id: String(opts["integration"]) } : {}),
          ...(opts["limit"] ? { limit: Number(opts["limit"]) } : {}),
        });
        ctx.out.result(answer, () => ctx.out.rows(EVENT_COLUMNS, answer.items));
      }),
    );
  examples(events, ["hirebridge sync events", "hirebridge sync events --integration greenhouse:8d1h… --status processed"]);

  const redrive = sync
    .command("redrive")
    .description("Re-drive a failed webhook event: its work runs once more (its attempts are kept).")
    .argument("<event-id>", "the event's id (`hirebridge sync events` lists the failed ones)")
    .action(
      run(async (ctx, [eventId]) => {
        const event = await (await ctx.client()).webhookEvents.redrive(String(eventId));
        ctx.out.result(event, () => `Event ${event.id} (${event.type}) queued again after ${event.attempts} failed attempt(s).`);
      }),
    );
  examples(redrive, [
    "hirebridge sync redrive 0195f0c2b7a14b3e9d21",
    "hirebridge --json sync events | jq -r '.items[].id' | xargs -n1 hirebridge sync redrive",
  ]);
};
