import type { SyncRun, WriteBack } from "../../contracts/proxy/webhooks.js";
import { CliError, EXIT } from "../cli-errors.js";
import type { CliContext } from "../context.js";
import { fit, outputWidth, renderTable, type Column } from "../output.js";
import { examples, type RegisterCommands } from "../program.js";

/** A timestamp to the second (the table's; --json keeps the API's own). */
const second = (at: string | null) => at?.replace(/\.\d+Z$/, "Z") ?? null;

const RUN_COLUMNS: Column<SyncRun>[] = [
  { header: "RUN", value: (r) => r.id, drop: 1 },
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
  { header: "STARTED", value: (r) => second(r.started_at) },
  { header: "MS", value: (r) => r.duration_ms, drop: 2 },
];

/** Interview results written back to the ATS (stage move, result link, note), newest first. */
const WRITE_BACK_COLUMNS: Column<WriteBack>[] = [
  { header: "CANDIDATE", value: (w) => w.candidate_id },
  { header: "APPLICATION", value: (w) => w.application_id, drop: 4 },
  { header: "OUTCOME", value: (w) => w.outcome },
  { header: "STAGE", value: (w) => w.target_stage, maxWidth: 24 },
  { header: "STATE", value: (w) => w.state },
  { header: "TRIES", value: (w) => w.attempts, drop: 2 },
  { header: "ERROR", value: (w) => w.last_error, maxWidth: 40, drop: 1 },
  { header: "CREATED", value: (w) => second(w.created_at) },
];

const progressLine = (runs: SyncRun[]) =>
  runs
    .map(
      (r) =>
        `${r.model} ${r.state}: ${r.pages} page(s), ${r.created} created, ${r.updated} updated, ${r.skipped} skipped, ${r.failed} failed`,
    )
    .join(" | ") || "waiting for the run…";

const TYPES = ["JOBS", "APPLICATIONS"] as const;

function integrationOf(ctx: CliContext, given: string | undefined): string {
  const id = given || ctx.io.env["HIREBRIDGE_INTEGRATION_ID"];
  if (!id) throw new CliError("An integration id is needed (argument, or HIREBRIDGE_INTEGRATION_ID)", EXIT.USAGE);
  return id;
}

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
        ctx.out.note(`Sync of ${integration} started.`);
        const live = ctx.io.stderr.isTTY === true && !ctx.out.json;
        let runs: SyncRun[] = [];
        // Model by model (jobs, then applications), each run followed to its end.
        // One column short of the terminal's width: a line that reaches the last column wraps on
        // some terminals, and the next redraw would leave its first half behind.
        const lineWidth = Math.max(20, (outputWidth(ctx.io.stderr, ctx.io.env) ?? 80) - 1);
        for await (const snapshot of hb.sync.run(integration, { type, pollIntervalMs: interval * 1000 })) {
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

  const status = sync
    .command("status")
    .description("Recent sync runs of an integration and the interview results written back to its ATS (newest first).")
    .argument("[integration-id]", "default HIREBRIDGE_INTEGRATION_ID")
    .option("--limit <n>", "how many runs (1-100, default 20)")
    .action(
      run(async (ctx, [given], opts) => {
        const integration = integrationOf(ctx, given);
        const answer = await (await ctx.client()).sync.runs(integration, opts["limit"] ? { limit: Number(opts["limit"]) } : {});
        ctx.out.result(answer, () =>
          [
            "Sync runs",
            renderTable(RUN_COLUMNS, answer.items, ctx.out.width),
            "",
            "Write-backs (interview results sent to the ATS)",
            renderTable(WRITE_BACK_COLUMNS, answer.write_backs, ctx.out.width),
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
};
