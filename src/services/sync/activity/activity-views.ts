import type { ActivityItem } from "../../../contracts/proxy/activity.js";
import type { AssessmentOrderRow } from "../assessments/assessments.tables.js";
import type { SyncRunRow, UpstreamCallFailureRow, WebhookEventRow, WriteBackRow } from "../sync.tables.js";
import type { QuietRunsRow } from "../sync-runs.repository.js";
import { iso, toSyncRunEntry, toWriteBack } from "../sync-views.js";
import { isUuid } from "../assessments/assessment-orders.repository.js";
import { toAssessmentOrder, type OrderNames } from "../assessments/order-view.js";
import type { ActivityKey, ActivityRows } from "./activity.repository.js";

/** Trail entries as the API shows them: the common fields, a line for people with names, the kind's details. */

const OUTCOME = { passed: "passed", rejected: "did not pass", needs_review: "needs a review" } as const;
const named = (id: string, name: string | null) => ({ id, name });
const whoWhere = (w: WriteBackRow) => `${w.candidateName ?? "a candidate"} (${w.positionName ?? "a position"})`;

type EventData = {
  changed_models?: { name?: string }[];
  sync_state?: string;
  tool?: string;
  integration_tool?: string;
  state?: string;
  setup_status?: string;
  end_user?: { organization_name?: string };
};

/** What an event says, in words and names (its payload), rather than its work's message with ids. */
function eventWhat(type: string, d: EventData): string {
  const org = d.end_user?.organization_name;
  switch (type) {
    case "data-changed":
      return `the ATS changed ${(d.changed_models ?? []).map((m) => m.name?.replace(/^ats_/, "").replace(/_/g, " ")).join(", ") || "data"}`;
    case "sync-finished":
      return `the ATS's own sync ended ${d.sync_state?.toLowerCase() ?? ""}`.trim();
    case "integration-created":
      return `${org ?? "an organisation"} connected ${d.tool ?? "an ATS"}`;
    case "integration-state-changed":
      return `the ATS reports the integration ${d.state ?? "changed"}${d.setup_status ? ` (set-up ${d.setup_status.toLowerCase().replace(/_/g, " ")})` : ""}`;
    case "integration-deleted":
      return "the integration was deleted in the ATS";
    case "connection-flow-failed":
      return `a connection attempt${org ? ` by ${org}` : ""} failed in the ATS's flow`;
    default:
      return type;
  }
}

function eventItem(e: WebhookEventRow): ActivityItem {
  const what = eventWhat(e.type, ((e.payload as { data?: EventData } | null)?.data ?? {}) as EventData);
  const outcome =
    e.status === "queued"
      ? "; its work is queued"
      : e.status === "failed"
        ? `; its work failed after ${e.attempts} attempt${e.attempts === 1 ? "" : "s"}`
        : e.status === "ignored"
          ? "; nothing to do"
          : "";
  return {
    kind: "event",
    id: e.id,
    at: e.receivedAt.toISOString(),
    status: e.status,
    summary: `${e.type}: ${what}${outcome}`,
    count: 1,
    error: e.status === "failed" ? (e.lastError ?? e.message) : e.lastError,
    attempts: e.attempts,
    // A failed event is re-driven (webhooks/redrive.ts: POST /webhooks/events/{id}/redrive).
    retryable: e.status === "failed",
    candidate: null,
    position: null,
    event: { type: e.type, message: e.message, received_at: e.receivedAt.toISOString(), processed_at: iso(e.processedAt) },
  };
}

/** The note of the quiet runs folded into a run: how many, and when the last began. */
export const quietNote = (q: QuietRunsRow) =>
  `; then ${q.count} incremental sync${q.count === 1 ? "" : "s"} found nothing new (the last at ${q.lastAt.toISOString().replace(/\.\d+Z$/, "Z")})`;

function runItem(r: SyncRunRow, quiet: QuietRunsRow | undefined): ActivityItem {
  const what = `${r.type === "FULL" ? "Full" : "Incremental"} sync of ${r.model} (${r.trigger})`;
  const counts = `${r.createdCount} created, ${r.updatedCount} updated${r.skippedCount ? `, ${r.skippedCount} skipped` : ""}`;
  return {
    kind: "sync_run",
    id: r.id,
    at: r.createdAt.toISOString(),
    status: r.state,
    summary: `${what}: ${r.state}${r.state === "succeeded" || r.state === "running" ? `, ${counts}` : ""}${quiet ? quietNote(quiet) : ""}`,
    count: 1,
    error: r.lastError,
    attempts: null,
    retryable: false,
    candidate: null,
    position: null,
    sync_run: toSyncRunEntry(r, quiet),
  };
}

const packageOf = (o: AssessmentOrderRow | undefined, names: OrderNames) =>
  o ? `package ${names.get(o.packageId) ?? o.packageId}` : "its package";

/** An order received: accepted (a candidate with an interview) or rejected with the recruiter's message. */
function orderItem(o: AssessmentOrderRow, names: OrderNames): ActivityItem {
  const order = toAssessmentOrder(o, names);
  const inline = o.inline ? " from the career page" : "";
  const summary =
    o.status === "accepted"
      ? `Assessment order received${inline}: ${order.candidate_name ?? "a candidate"} for ${packageOf(o, names)}; interview created`
      : `Assessment order rejected${inline}: ${packageOf(o, names)}`;
  return {
    kind: "assessment_order",
    id: o.id,
    at: o.createdAt.toISOString(),
    status: o.status,
    summary,
    count: 1,
    // The rejection's message is what the recruiter read in the ATS.
    error: o.status === "rejected" ? o.message : null,
    attempts: null,
    retryable: false,
    candidate: o.candidateId ? named(o.candidateId, order.candidate_name) : null,
    position: o.positionId ? named(o.positionId, names.get(o.positionId) ?? null) : null,
    assessment_order: order,
  };
}

/** What a write-back of an order's result says, by its state (its result goes on the order, not to a stage). */
const ORDER_RESULT = { done: "written", pending: "being written", paused: "paused", failed: "not written" } as const;

function writeBackItem(w: WriteBackRow, order: AssessmentOrderRow | undefined, names: OrderNames): ActivityItem {
  const stage = w.targetStageName ?? w.targetStage;
  const settled = order && order.resultStatus !== "OPEN" ? `: ${order.resultStatus.toLowerCase()}` : "";
  const summary = w.assessmentOrderId
    ? `Assessment order result ${ORDER_RESULT[w.state]}: ${w.candidateName ?? "a candidate"} (${packageOf(order, names)})${settled}`
    : `Write-back: ${whoWhere(w)} ${OUTCOME[w.outcome]}${stage ? `, to stage ${stage}` : ""}`;
  return {
    kind: "write_back",
    id: w.id,
    at: w.createdAt.toISOString(),
    status: w.state,
    summary,
    count: 1,
    error: w.lastError,
    attempts: w.attempts,
    retryable: w.state === "failed",
    candidate: named(w.candidateId, w.candidateName),
    position: named(w.positionId, w.positionName),
    write_back: toWriteBack(w),
    ...(order ? { assessment_order: toAssessmentOrder(order, names) } : {}),
  };
}

function callItem(c: UpstreamCallFailureRow, w: WriteBackRow | undefined): ActivityItem {
  const status = c.upstreamStatus === null ? "" : ` (HTTP ${c.upstreamStatus})`;
  const times = c.count > 1 ? `, ${c.count} times` : "";
  return {
    kind: "upstream_call",
    id: c.id,
    at: c.createdAt.toISOString(),
    status: "failed",
    summary: `${c.source} ${c.operation} failed${status}${times}${w ? ` for ${whoWhere(w)}` : ""}`,
    count: 1,
    error: c.error,
    attempts: c.count,
    retryable: false,
    candidate: w ? named(w.candidateId, w.candidateName) : null,
    position: w ? named(w.positionId, w.positionName) : null,
    upstream_call: {
      source: c.source,
      operation: c.operation,
      upstream_status: c.upstreamStatus,
      count: c.count,
      last_at: c.lastAt.toISOString(),
      request_id: c.requestId,
      write_back_id: c.writeBackId,
    },
  };
}

/** The positions (packages) and candidates whose names the page's orders show. */
export function orderNameIds(rows: ActivityRows): { positions: string[]; candidates: string[] } {
  const orders = [...rows.orders.values(), ...rows.ordersOfWriteBacks.values()];
  return {
    // A package id is a position's id; one that is not a UUID names no position here.
    positions: [...new Set(orders.flatMap((o) => [o.packageId, o.positionId ?? ""]).filter(isUuid))],
    candidates: [...new Set(orders.map((o) => o.candidateId).filter((c): c is string => c !== null))],
  };
}

/** One item of the trail, with the last of `keys` it stands for (a folded row stands for several). */
export type FoldedItem = { item: ActivityItem; last: ActivityKey };

/**
 * The page's entries as items, in the page's order (an entry whose row is gone meanwhile is left
 * out), identical consecutive events folded (foldRepeatedEvents).
 */
export function foldedActivity(keys: ActivityKey[], rows: ActivityRows, names: OrderNames = new Map()): FoldedItem[] {
  const items: FoldedItem[] = [];
  for (const k of keys) {
    const item = itemOf(k, rows, names);
    if (item) items.push({ item, last: k });
  }
  return foldRepeatedEvents(items);
}

function itemOf(k: ActivityKey, rows: ActivityRows, names: OrderNames): ActivityItem | undefined {
  if (k.kind === "event") {
    const e = rows.events.get(k.id);
    return e && eventItem(e);
  }
  if (k.kind === "sync_run") {
    const r = rows.runs.get(k.id);
    return r && runItem(r, rows.quietRuns.get(r.id));
  }
  if (k.kind === "write_back") {
    const w = rows.writeBacks.get(k.id);
    return w && writeBackItem(w, orderOf(rows, w), names);
  }
  if (k.kind === "assessment_order") {
    const o = rows.orders.get(k.id);
    return o && orderItem(o, names);
  }
  const c = rows.calls.get(k.id);
  return c && callItem(c, c.writeBackId ? rows.writeBacks.get(c.writeBackId) : undefined);
}

/**
 * The first `limit` rows of the folded entries; `last`: the last entry they stand for (the next
 * page starts after it); `more`: whether there are more (`leftUnread`: entries beyond those read exist).
 */
export function foldedPage(folded: FoldedItem[], limit: number, leftUnread: boolean) {
  const page = folded.slice(0, limit);
  return { items: page.map((f) => f.item), last: page.at(-1)?.last, more: folded.length > limit || leftUnread };
}

/**
 * Identical consecutive events (the upstream's data-changed for each call of one write-back, …) as
 * one row with their `count`: same type, status, line and error; the newest is shown. A failed
 * event is never folded: each is re-driven by its own id.
 */
function foldRepeatedEvents(items: FoldedItem[]): FoldedItem[] {
  const folded: FoldedItem[] = [];
  for (const next of items) {
    const prev = folded.at(-1);
    const [a, b] = [prev?.item, next.item];
    const same =
      a?.kind === "event" &&
      b.kind === "event" &&
      !a.retryable &&
      !b.retryable &&
      a.status === b.status &&
      a.summary === b.summary &&
      a.error === b.error &&
      a.event?.type === b.event?.type;
    if (prev && same) {
      prev.item.count += 1;
      prev.last = next.last;
    } else folded.push(next);
  }
  return folded;
}

const orderOf = (rows: ActivityRows, w: WriteBackRow) =>
  w.assessmentOrderId ? rows.ordersOfWriteBacks.get(`${w.integrationId}:${w.assessmentOrderId}`) : undefined;
