import type { IntegrationSyncs, SyncAllQuery, SyncRun, WebhookResponse } from "../../contracts/proxy/webhooks.js";
import { AbortedError, HirebridgeError } from "../core/errors.js";
import type { RequestOptions } from "../core/http-client.js";
import { path } from "../core/url.js";
import type { ProxyContext } from "./context.js";

export type SyncModel = SyncRun["model"];
const FINAL: ReadonlySet<SyncRun["state"]> = new Set(["succeeded", "failed", "cancelled"]);
/** A run is over when it reaches one of these states. */
export const isFinalRun = (run: SyncRun) => FINAL.has(run.state);

/** Which models a sync of this type covers, in order (jobs first: applications need their positions). */
export const modelsOf = (type?: SyncAllQuery["type"]): SyncModel[] =>
  type === "JOBS" ? ["jobs"] : type === "APPLICATIONS" ? ["applications"] : ["jobs", "applications"];

const TYPE_OF: Record<SyncModel, NonNullable<SyncAllQuery["type"]>> = { jobs: "JOBS", applications: "APPLICATIONS" };
// The runs list is newest first; a run just started is among the most recent ones.
const RECENT_RUNS = 100;

/** Hirebridge's own sync of an integration into positions and candidates: start it, read its runs, follow it. */
export class SyncResource {
  constructor(private readonly ctx: ProxyContext) {}

  /**
   * Starts a full sync of the integration's jobs and applications (or one of them) and answers at
   * once; `message` is the id of the (first) run. A start while a run of the model is queued joins it.
   * @example
   * const { message: runId } = await hb.sync.start(integrationId, { type: "JOBS" });
   */
  start(integrationId: string, params: { type?: SyncAllQuery["type"] } = {}, options?: RequestOptions): Promise<WebhookResponse> {
    return this.ctx.http.request(
      {
        method: "POST",
        baseUrl: this.ctx.baseUrl,
        path: "/webhooks/sync-all",
        query: { integration_id: integrationId, type: params.type },
        idempotent: true, // a repeated start joins the queued run
      },
      options,
    );
  }

  /**
   * Recent sync runs (newest first) and interview results written back to the ATS. Incremental
   * runs that changed nothing are folded into the run before them (`quiet_runs`) unless `include_quiet`.
   */
  runs(
    integrationId: string,
    params: { limit?: number; include_quiet?: boolean } = {},
    options?: RequestOptions,
  ): Promise<IntegrationSyncs> {
    return this.ctx.http.request(
      {
        method: "GET",
        baseUrl: this.ctx.baseUrl,
        path: path`/integrations/${integrationId}/syncs`,
        query: { limit: params.limit, include_quiet: params.include_quiet },
      },
      options,
    );
  }

  /**
   * Polls one run until it ends, yielding it each time it changed (state, pages, counts).
   * @example
   * for await (const run of hb.sync.follow(integrationId, runId)) console.log(run.state, run.pages);
   */
  async *follow(
    integrationId: string,
    runId: string,
    opts: { pollIntervalMs?: number } & RequestOptions = {},
  ): AsyncGenerator<SyncRun, SyncRun, undefined> {
    const { pollIntervalMs = 1000, ...options } = opts;
    let last = "";
    for (;;) {
      // A run that ends having changed nothing is folded in the default list: ask for every run.
      const { items } = await this.runs(integrationId, { limit: RECENT_RUNS, include_quiet: true }, options);
      const run = items.find((r) => r.id === runId);
      if (!run) throw new HirebridgeError(`Sync run ${runId} is not among the integration's recent runs`);
      const snapshot = JSON.stringify(run);
      if (snapshot !== last) {
        last = snapshot;
        yield run;
      }
      if (isFinalRun(run)) return run;
      try {
        await this.ctx.clock.sleep(pollIntervalMs, options.signal);
      } catch (err) {
        throw new AbortedError("Following the sync was aborted", { cause: err });
      }
    }
  }

  /**
   * Syncs the integration model by model (jobs, then applications) and follows each run to its
   * end, yielding the runs so far whenever one changed. Stops at a run that did not succeed.
   * @example
   * for await (const runs of hb.sync.run(integrationId)) {
   *   console.log(runs.map((r) => `${r.model} ${r.state}: ${r.created} created`).join(" | "));
   * }
   */
  async *run(
    integrationId: string,
    opts: { type?: SyncAllQuery["type"]; pollIntervalMs?: number } & RequestOptions = {},
  ): AsyncGenerator<SyncRun[], SyncRun[], undefined> {
    const { type, ...followOptions } = opts;
    const done: SyncRun[] = [];
    for (const model of modelsOf(type)) {
      const started = await this.start(integrationId, { type: TYPE_OF[model] }, followOptions);
      if (!started.message) throw new HirebridgeError("The proxy started the sync but named no run");
      let current: SyncRun | undefined;
      for await (const run of this.follow(integrationId, started.message, followOptions)) {
        current = run;
        yield [...done, run];
      }
      done.push(current!);
      if (current!.state !== "succeeded") break;
    }
    return done;
  }
}
