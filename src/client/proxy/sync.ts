import type { IntegrationSyncs, SyncAllQuery, SyncRun, WebhookResponse } from "../../contracts/proxy/webhooks.js";
import { AbortedError } from "../core/errors.js";
import type { RequestOptions } from "../core/http-client.js";
import { path } from "../core/url.js";
import type { ProxyContext } from "./context.js";

export type SyncModel = SyncRun["model"];
const FINAL: ReadonlySet<SyncRun["state"]> = new Set(["succeeded", "failed", "cancelled"]);
/** A run is over when it reaches one of these states. */
export const isFinalRun = (run: SyncRun) => FINAL.has(run.state);

/** Which models a `sync-all` of this type runs, in order (jobs first: applications need their positions). */
export const modelsOf = (type?: SyncAllQuery["type"]): SyncModel[] =>
  type === "JOBS" ? ["jobs"] : type === "APPLICATIONS" ? ["applications"] : ["jobs", "applications"];

/** Hirebridge's own sync of an integration into positions and candidates: start it, read its runs, follow it. */
export class SyncResource {
  constructor(private readonly ctx: ProxyContext) {}

  /**
   * Starts a full sync of the integration's jobs and applications (or one of them). Answers at once;
   * `message` is the id of the first run.
   * @example
   * const { message: runId } = await hb.sync.start(integrationId);
   */
  start(integrationId: string, params: { type?: SyncAllQuery["type"] } = {}, options?: RequestOptions): Promise<WebhookResponse> {
    return this.ctx.http.request(
      {
        method: "POST",
        baseUrl: this.ctx.baseUrl,
        path: "/webhooks/sync-all",
        query: { integration_id: integrationId, type: params.type },
        idempotent: true, // a trigger while a run is queued joins that run
      },
      options,
    );
  }

  /** Recent sync runs (newest first) and interview results written back to the ATS. */
  runs(integrationId: string, params: { limit?: number } = {}, options?: RequestOptions): Promise<IntegrationSyncs> {
    return this.ctx.http.request(
      { method: "GET", baseUrl: this.ctx.baseUrl, path: path`/integrations/${integrationId}/syncs`, query: { limit: params.limit } },
      options,
    );
  }

  /**
   * Polls a sync until it ends, yielding its runs (oldest first) each time something changed. A
   * sync of several models is a chain: when the run of one model succeeds, the next model's run
   * starts; a failed run ends the chain.
   * @example
   * const { message } = await hb.sync.start(integrationId);
   * for await (const runs of hb.sync.follow(integrationId, message!, { models: ["jobs", "applications"] })) {
   *   console.log(runs.map((r) => `${r.model}: ${r.state}, ${r.pages} pages`).join("; "));
   * }
   */
  async *follow(
    integrationId: string,
    runId: string,
    opts: { models?: SyncModel[]; pollIntervalMs?: number } & RequestOptions = {},
  ): AsyncGenerator<SyncRun[], void, undefined> {
    const { models, pollIntervalMs = 1000, ...options } = opts;
    let last = "";
    for (;;) {
      const { items } = await this.runs(integrationId, { limit: 50 }, options);
      const chain = chainOf(items, runId, models);
      const snapshot = JSON.stringify(chain);
      if (snapshot !== last) {
        last = snapshot;
        yield chain;
      }
      if (chainDone(chain, models)) return;
      try {
        await this.ctx.clock.sleep(pollIntervalMs, options.signal);
      } catch (err) {
        throw new AbortedError("Following the sync was aborted", { cause: err });
      }
    }
  }
}

/** The run `runId` and the runs of the later models that it started (same trigger, created after it). */
function chainOf(items: SyncRun[], runId: string, models: SyncModel[] | undefined): SyncRun[] {
  const first = items.find((r) => r.id === runId);
  if (!first) return [];
  const chain = [first];
  if (!models) return chain;
  for (const model of models.slice(models.indexOf(first.model) + 1)) {
    const previous = chain.at(-1)!;
    const next = items
      .filter((r) => r.model === model && r.trigger === first.trigger && r.created_at >= previous.created_at)
      .sort((a, b) => a.created_at.localeCompare(b.created_at))[0];
    if (!next) break;
    chain.push(next);
  }
  return chain;
}

function chainDone(chain: SyncRun[], models: SyncModel[] | undefined): boolean {
  const last = chain.at(-1);
  if (!last || !isFinalRun(last)) return false;
  if (last.state !== "succeeded") return true; // a failed or cancelled run starts no successor
  const wanted = models ?? [chain[0]!.model];
  return wanted.every((m) => chain.some((r) => r.model === m));
}
