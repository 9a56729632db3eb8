import type { SyncRun } from "../../contracts/proxy/webhooks.js";
import { CliError, EXIT } from "../cli-errors.js";
import type { CliContext } from "../context.js";
import type { Column } from "../output.js";
import { examples, type RegisterCommands } from "../program.js";

const RUN_COLUMNS: Column<SyncRun>[] = [
  { header: "RUN", value: (r) => r.id },
  { header: "MODEL", value: (r) => r.model },
  { header: "TYPE", value: (r) => r.type },
  { header: "TRIGGER", value: (r) => r.trigger, maxWidth: 20 },
  { header: "STATE", value: (r) => r.state },
  { header: "PAGES", value: (r) => r.pages },
  { header: "CREATED", value: (r) => r.created },
  { header: "UPDATED", value: (r) => r.updated },
  { header: "UNLINKED", value: (r) => r.unlinked },
  { header: "SKIPPED", value: (r) => r.skipped },
  { header: "FAILED", value: (r) => r.failed },
  { header: "STARTED", value: (r) => r.started_at },
  { header: "MS", value: (r) => r.duration_ms },
];

const progressLine = (runs: SyncRun[]) =>
  runs
    .map((r) => `${r.model} ${r.state}: ${r.pages} page(s), ${r.created} created, ${r.updated} updated, ${r.skipped} skipped, ${r.failed} failed`)
    .join(" | ") || "waiting for the run…";

const TYPES = ["JOBS", "APPLICATIONS"] as const;

function integrationOf(ctx: CliContext, given: string | undefined): string {
  const id = given || ctx.io.env["HIREBRIDGE_INTEGRATION_ID"];
  if (!id) throw new CliError("An integration id is needed (argument, or HIREBRIDGE_INTEGRATION_ID)", EXIT.USAGE);
  return id;
}

export const registerSyncCommands: RegisterCommands = (program, run) => {
  const sync = program.command("sync").description("Hirebridge's sync of an integration's jobs and applications into positions and candidates.");

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
        if (only !== undefined && !TYPES.includes(only as (typeof TYPES)[number])) throw new CliError("--only must be JOBS or APPLICATIONS", EXIT.USAGE);
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
        for await (const snapshot of hb.sync.run(integration, { type, pollIntervalMs: interval * 1000 })) {
          runs = snapshot;
          // On a terminal one line is redrawn; in logs every change is its own line.
          if (live) ctx.io.stderr.write(`\r\u001b[2K${progressLine(runs)}`);
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
    .description("Recent sync runs of an integration (newest first).")
    .argument("[integration-id]", "default HIREBRIDGE_INTEGRATION_ID")
    .option("--limit <n>", "how many runs (1-100, default 20)")
    .action(
      run(async (ctx, [given], opts) => {
        const integration = integrationOf(ctx, given);
        const answer = await (await ctx.client()).sync.runs(integration, opts["limit"] ? { limit: Number(opts["limit"]) } : {});
        ctx.out.table(answer.items, RUN_COLUMNS, answer);
      }),
    );
  examples(status, ["hirebridge sync status greenhouse:8d1h…", "hirebridge --json sync status greenhouse:8d1h… | jq '.items[0].state'"]);

  const upstream = sync
    .command("upstream")
    .description("Ask the upstream ATS API to sync the integration (FULL or DELTA); Hirebridge follows when the upstream reports it finished.")
    .argument("[integration-id]", "default HIREBRIDGE_INTEGRATION_ID")
    .option("--type <type>", "FULL or DELTA (default DELTA)")
    .action(
      run(async (ctx, [given], opts) => {
        const integration = integrationOf(ctx, given);
        const type = opts["type"] === undefined ? undefined : String(opts["type"]).toUpperCase();
        if (type !== undefined && type !== "FULL" && type !== "DELTA") throw new CliError("--type must be FULL or DELTA", EXIT.USAGE);
        const answer = await (await ctx.client()).general.forceSync(integration, type ? { type } : {});
        ctx.out.result(answer, () =>
          `Upstream ${answer.data.type} sync ${answer.data.already_queued ? "was already queued" : "queued"} (sync id ${answer.data.sync_id}).`,
        );
      }),
    );
  examples(upstream, ["hirebridge sync upstream greenhouse:8d1h… --type FULL"]);
};
