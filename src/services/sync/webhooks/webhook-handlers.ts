import type { Logger } from "pino";
import type {
  ConnectionFlowFailedData,
  DataChangedData,
  IntegrationCreatedData,
  IntegrationDeletedData,
  IntegrationStateChangedData,
  SyncFinishedData,
} from "../../../contracts/upstream/index.js";
import type { WebhookKind } from "../../../contracts/proxy/webhooks.js";
import type { Db, Queryable } from "../../../shared/db/database.js";
import type { RecruitingStore } from "../../../shared/ports/recruiting-sync.js";
import type { SyncEngine } from "../sync-engine.js";
import type { SyncModel } from "../sync.tables.js";
import type { IntegrationLookup } from "../../../shared/ports/integrations.js";
import type { WriteBack } from "../write-back.js";
import { writeBackActiveSince } from "../write-backs.repository.js";

export type WebhookWorkContext = {
  db: Db;
  integrations: IntegrationLookup;
  engine: SyncEngine;
  writeBack: WriteBack;
  store: RecruitingStore<Queryable, Db>;
  logger: Logger;
  /** Told of the integrations whose health an event may have changed (it failed for good, or reported a new state). */
  health?: { refreshQuietly(integrationId: string): Promise<void> };
};

/** The outcome of an event's work: `ignored` when it was authentic but there was nothing to do. */
export type WebhookOutcome = { status: "processed" | "ignored"; message: string };
type Handler = (data: never, ctx: WebhookWorkContext, eventId: string) => Promise<WebhookOutcome>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The Hirebridge organisation an event names (create-link sets `end_user_origin_id` to it). */
export const orgOf = (data: { end_user?: { origin_id?: string | null } | null }): string | null => {
  const id = data.end_user?.origin_id;
  return typeof id === "string" && UUID.test(id) ? id.toLowerCase() : null;
};

/** The upstream models that feed each of Hirebridge's syncs (data-changed names them). */
const MODELS_FOR: Record<SyncModel, readonly string[]> = {
  jobs: ["ats_jobs", "ats_join_jobs_application_stages"],
  applications: ["ats_applications", "ats_candidates", "ats_application_stages", "ats_tags", "ats_join_candidates_tags"],
};
const BOTH: SyncModel[] = ["jobs", "applications"];

async function orgOfIntegration(ctx: WebhookWorkContext, integrationId: string): Promise<string | null> {
  const row = await ctx.integrations.find(integrationId);
  return row && !row.deletedAt ? row.orgId : null;
}

const integrationCreated = async (data: IntegrationCreatedData, ctx: WebhookWorkContext): Promise<WebhookOutcome> => {
  const orgId = orgOf(data);
  if (!orgId) return { status: "ignored", message: "end_user.origin_id names no Hirebridge organisation" };
  const row = await ctx.integrations.record({
    id: data.id,
    orgId,
    tool: data.tool,
    category: data.category,
    organizationName: data.end_user.organization_name,
  });
  if (!row || row.orgId !== orgId) return { status: "ignored", message: "integration already belongs to another organisation" };
  if (row.deletedAt) return { status: "ignored", message: "integration was deleted" };
  if (data.category !== "ATS") return { status: "processed", message: `integration recorded for organisation ${orgId}` };
  const run = await ctx.engine.start({ integrationId: data.id, orgId, models: BOTH, type: "FULL", trigger: "integration-created" });
  return { status: "processed", message: `integration recorded for organisation ${orgId}; full sync ${run.id} queued` };
};

const integrationStateChanged = async (data: IntegrationStateChangedData, ctx: WebhookWorkContext): Promise<WebhookOutcome> => {
  const applied = await ctx.integrations.setState(data.integration_id, {
    status: data.state,
    setupStatus: data.setup_status,
    qaStatus: data.qa_status,
    category: data.integration_category,
    organizationName: data.end_user.organization_name,
    at: new Date(data.updated_at),
  });
  if (!applied) return { status: "ignored", message: "older than the state already recorded, or unknown integration" };
  if (data.state !== "ACTIVE") {
    const cancelled = await ctx.engine.cancelOpenRuns(data.integration_id, `paused: integration is ${data.state}`);
    return { status: "processed", message: `integration ${data.state}: syncs and write-backs paused (${cancelled} sync runs cancelled)` };
  }
  const orgId = await orgOfIntegration(ctx, data.integration_id);
  const resumed = await ctx.writeBack.resumePaused(data.integration_id);
  if (orgId)
    await ctx.engine.start({
      integrationId: data.integration_id,
      orgId,
      models: BOTH,
      type: "DELTA",
      trigger: "integration-state-changed",
    });
  return { status: "processed", message: `integration ACTIVE: syncs resumed, ${resumed} write-backs resumed` };
};

const integrationDeleted = async (data: IntegrationDeletedData, ctx: WebhookWorkContext): Promise<WebhookOutcome> => {
  const row = await ctx.integrations.find(data.id);
  if (!row) return { status: "ignored", message: "integration was never recorded" };
  await ctx.integrations.markDeleted(data.id, new Date(data.deleted_at));
  const cancelled = await ctx.engine.cancelOpenRuns(data.id, "integration deleted");
  await ctx.writeBack.abandon(data.id, "integration deleted");
  const unlinked = await ctx.db.transaction((tx) => ctx.store.unlink(tx, row.orgId, data.id));
  return {
    status: "processed",
    message: `integration deleted: ${cancelled} sync runs cancelled, ${unlinked.positions} positions and ${unlinked.candidates} candidates unlinked`,
  };
};

/** The incremental sync an event asks for: the models, or the outcome when there is nothing to sync. */
type DeltaOf = (data: never) => SyncModel[] | WebhookOutcome;

const dataChanged = (data: DataChangedData): SyncModel[] | WebhookOutcome => {
  const changed = new Set<string>(data.changed_models.map((m) => m.name));
  const models = BOTH.filter((m) => MODELS_FOR[m].some((name) => changed.has(name)));
  return models.length ? models : { status: "ignored", message: "no model Hirebridge syncs changed" };
};

const syncFinished = (data: SyncFinishedData): SyncModel[] | WebhookOutcome =>
  data.sync_state === "SUCCEEDED" ? BOTH : { status: "ignored", message: `upstream sync ${data.sync_state}: nothing new to read` };

/** How long after a write-back's last change a data-changed counts as its echo. */
export const ECHO_WINDOW_SECONDS = 30;
/** How long an echo's run waits for the write-back's other echoes to join it. */
export const ECHO_SETTLE_SECONDS = 3;

/**
 * Starts one incremental sync for several events of one integration (they arrived together): the
 * models any of them changed, in one trigger; every event is answered with the run that does its work.
 * A write-back's echo waits ECHO_SETTLE_SECONDS, so the echoes after it join its run.
 */
export async function deltaSyncFor(
  ctx: WebhookWorkContext,
  integrationId: string,
  models: SyncModel[],
  trigger: string,
): Promise<WebhookOutcome> {
  const orgId = await orgOfIntegration(ctx, integrationId);
  if (!orgId) return { status: "ignored", message: "integration is not recorded or was deleted" };
  const ordered = BOTH.filter((m) => models.includes(m));
  // A write-back's echo: its calls (stage, link, note) each make the upstream send data-changed.
  // The run waits a few seconds, so the echoes that follow join it: one follow-up run, not three.
  const echo = trigger.includes("data-changed") && (await writeBackActiveSince(ctx.db, integrationId, ECHO_WINDOW_SECONDS));
  const later = echo ? { startAfterSeconds: ECHO_SETTLE_SECONDS } : {};
  const run = await ctx.engine.start({ integrationId, orgId, models: ordered, type: "DELTA", trigger, ...later });
  const when = echo ? ` in ${ECHO_SETTLE_SECONDS} s (the echo of a write-back)` : "";
  return { status: "processed", message: `incremental sync ${run.id} queued${when} (${ordered.join(", ")})` };
}

const connectionFlowFailed = async (data: ConnectionFlowFailedData, ctx: WebhookWorkContext, eventId: string): Promise<WebhookOutcome> => {
  ctx.logger.warn(
    { event_id: eventId, org_id: orgOf(data), tool: data.integration_tool, category: data.integration_category },
    "a connection flow failed (recorded; the flow can still succeed later)",
  );
  return { status: "processed", message: `connection flow failure recorded for organisation ${orgOf(data) ?? "unknown"}` };
};

type KindHandler = { integrationOf: (data: Record<string, unknown>) => string | null } & ({ handle: Handler } | { delta: DeltaOf });

/**
 * Each kind: where its integration id is, and its work: `handle` runs it event by event; `delta`
 * names the incremental sync it asks for, which the worker starts once for all the events of an
 * integration that it takes together.
 */
export const WEBHOOK_HANDLERS: Record<WebhookKind, KindHandler> = {
  "data-changed": { integrationOf: (d) => str(d["integration_id"]), delta: dataChanged as DeltaOf },
  "sync-finished": { integrationOf: (d) => str(d["integration_id"]), delta: syncFinished as DeltaOf },
  "integration-created": { integrationOf: (d) => str(d["id"]), handle: integrationCreated as Handler },
  "integration-deleted": { integrationOf: (d) => str(d["id"]), handle: integrationDeleted as Handler },
  "connection-flow-failed": { integrationOf: () => null, handle: connectionFlowFailed as Handler },
  "integration-state-changed": { integrationOf: (d) => str(d["integration_id"]), handle: integrationStateChanged as Handler },
};

const str = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : null);
