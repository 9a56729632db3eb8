import type { Logger } from "pino";
import type { Job } from "../../contracts/upstream/index.js";
import type { Db, Queryable, Tx } from "../../shared/db/database.js";
import { PRIORITY, QUEUES, type JobQueue } from "../../shared/jobs/queue.js";
import type { IntegrationLookup } from "../../shared/ports/integrations.js";
import type {
  InterviewEnded,
  InterviewEndedHook,
  InterviewResult,
  WriteBackSource,
  WriteBackTarget,
} from "../../shared/ports/recruiting-sync.js";
import { cut } from "../../shared/text.js";
import { isPermanentUpstreamError, type AtsReader } from "./ats-reader.js";
import type { WriteBackRow } from "./sync.tables.js";
import { matchStage, missingStageMessage } from "./stage-match.js";
import { writeBackSettled, type SyncEvents } from "./sync-events.js";
import { NO_EVENTS_OUT } from "../../shared/no-events-out.js";
import { assertWriteBackTransition, isFinalWriteBack } from "./write-back.states.js";
import {
  countWriteBackAttempt,
  failOpenWriteBacks,
  findWriteBack,
  insertWriteBack,
  resumePausedWriteBacks,
  updateWriteBack,
  type WriteBackPatch,
} from "./write-backs.repository.js";

export type WriteBackDeps = {
  db: Db;
  queue: JobQueue;
  reader: AtsReader;
  /** The integration's state, and (IntegrationOwnership) whether it belongs to the write-back's organisation. */
  integrations: Pick<IntegrationLookup, "find" | "belongsTo">;
  source: WriteBackSource<Queryable>;
  logger: Logger;
  now?: () => Date;
  /** After a write-back became done or failed (its integration's health may have changed). */
  onSettled?: (integrationId: string) => Promise<void>;
  /** Where a write-back that is done or failed for good is recorded as `write_back.succeeded`/`failed`, with its change. */
  events?: SyncEvents;
  /** Writes an assessment order's result on the order (assessments/order-result.ts), for write-backs of orders. */
  orderResult?: (wb: WriteBackRow, result: InterviewResult) => Promise<void>;
};

const RESULT_LINK_LABEL = "Hirebridge AI interview";

/** graded with score >= min_score passes; graded below fails; errored or cancelled needs a person. */
export function outcomeOf(event: Pick<InterviewEnded, "to">, score: number | null, minScore: number | null) {
  if (event.to !== "graded") return "needs_review" as const;
  if (minScore === null) return score === null ? ("needs_review" as const) : ("passed" as const);
  return score !== null && score >= minScore ? ("passed" as const) : ("rejected" as const);
}

/** The stage a position names for an outcome. */
export function stageForOutcome(
  outcome: WriteBackRow["outcome"],
  target: Pick<WriteBackTarget, "passedStage" | "rejectedStage" | "needsReviewedStage">,
) {
  return outcome === "passed" ? target.passedStage : outcome === "rejected" ? target.rejectedStage : target.needsReviewedStage;
}

/**
 * The recruiting API's `onInterviewEnded` hook: inside the transaction that ends an interview, it
 * records the write-back and enqueues its job, so the write-back exists exactly when the result does.
 * The event carries the position's write-back settings: nothing is read back from the recruiting data.
 */
export function writeBackHook(queue: JobQueue, now: () => Date = () => new Date()) {
  return (async (event: InterviewEnded, tx: Tx): Promise<void> => {
    const target = event.writeBack;
    // A candidate from an assessment order gets its result on the order, once: graded or
    // cancelled (an errored interview may be taken again; the upstream changes only OPEN orders,
    // so a correction cannot follow).
    const order = target.assessmentOrderId;
    if (order && (event.to === "errored" || event.correction)) return;
    if (!order && !target.autoUpdateStages) return;
    if (!target.integrationId || !target.applicationId) return;
    const outcome = outcomeOf(event, event.interview.score, target.minScore);
    const stage = stageForOutcome(outcome, target);
    const when = event.interview.graded_at ?? event.interview.end_time ?? now().toISOString();
    const id = await insertWriteBack(tx, {
      eventKey: event.correction ? `${event.interviewId}:correction:${event.correction.at}` : `${event.interviewId}:${event.to}:${when}`,
      correctionReason: event.correction?.reason ?? null,
      orgId: event.organizationId,
      integrationId: target.integrationId,
      applicationId: target.applicationId,
      positionId: event.positionId,
      candidateId: event.candidateId,
      interviewId: event.interviewId,
      outcome,
      targetStage: stage,
      candidateName: target.candidateName,
      positionName: target.positionName,
      assessmentOrderId: order,
    });
    if (id) await queue.send(QUEUES.writeBack, { id }, { tx, priority: PRIORITY.interactive, orgId: event.organizationId });
  }) satisfies InterviewEndedHook<Tx>;
}

/** What the worker's steps share: the deps, with the clock and the outbound events filled in. */
type Ctx = WriteBackDeps & { now: () => Date; events: SyncEvents };

/** Records a step or a state change of `wb`, checking the state's transition. */
async function update(ctx: Ctx, wb: WriteBackRow, patch: WriteBackPatch): Promise<void> {
  if (patch.state) assertWriteBackTransition(wb.state, patch.state);
  if (!patch.state || !isFinalWriteBack(patch.state)) {
    await updateWriteBack(ctx.db, wb.id, patch, ctx.now());
    return;
  }
  // Done or failed for good: the change and its outbound event commit together.
  await ctx.db.transaction(async (tx) => {
    const settled = await updateWriteBack(tx, wb.id, patch, ctx.now());
    if (settled) await ctx.events.record(tx, [writeBackSettled(settled)]);
  });
  ctx.events.committed([wb.orgId]);
  await ctx.onSettled?.(wb.integrationId);
}

/**
 * Why `wb` cannot go out now, recorded (failed or paused), or the result it reports. Checks the
 * integration's owner again as it sends: a link stored before the recruiting API checked links
 * (or changed since) must never write into another organisation's ATS.
 */
async function sendable(ctx: Ctx, wb: WriteBackRow, log: Logger): Promise<InterviewResult | null> {
  const integration = await ctx.integrations.find(wb.integrationId);
  let stop: { state: "failed" | "paused"; reason: string } | null = null;
  if (!integration || integration.deletedAt) stop = { state: "failed", reason: "integration deleted" };
  else if (!(await ctx.integrations.belongsTo(wb.integrationId, wb.orgId)))
    stop = { state: "failed", reason: "the integration does not belong to the position's organisation" };
  else if (integration.status && integration.status !== "ACTIVE")
    stop = { state: "paused", reason: `paused: integration is ${integration.status}` };
  const result = stop ? null : await ctx.source.result(ctx.db, wb.positionId, wb.candidateId);
  if (!stop && !result) stop = { state: "failed", reason: "position or candidate no longer exists" };
  if (!stop) return result;
  await update(ctx, wb, { state: stop.state, lastError: stop.reason });
  if (stop.state === "paused") log.info({ reason: stop.reason }, "write-back paused");
  else log.warn({ reason: stop.reason, org_id: wb.orgId }, "write-back failed");
  return null;
}

const applicationPath = (wb: WriteBackRow) => `/ats/applications/${encodeURIComponent(wb.applicationId)}`;

/** Step 1: moves the application to the target stage (unless it was moved already); answers the stage's name, or an error. */
async function moveStage(
  ctx: Ctx,
  wb: WriteBackRow,
  result: InterviewResult,
): Promise<{ moved: boolean; stageName: string | null; error?: string }> {
  let stageName: string | null = wb.targetStageName;
  if (wb.stageMovedAt !== null) return { moved: true, stageName };
  if (!wb.targetStage || !result.upstreamJobId) return { moved: false, stageName };
  let stageId = wb.targetStageId;
  if (!stageId) {
    const jobs = await ctx.reader.page<Job>(wb.integrationId, "/ats/jobs", { ids: result.upstreamJobId, include_deleted: "true" });
    const stage = matchStage(jobs.results[0]?.stages ?? [], wb.targetStage);
    stageId = stage?.id ?? null;
    stageName = stage?.name ?? null;
    // Resolved once: a retry (e.g. after a 429) goes straight to the move. The stage's name
    // is kept as the job named it, for the history.
    if (stageId) await update(ctx, wb, { targetStageId: stageId, targetStageName: stageName });
  }
  if (!stageId) return { moved: false, stageName, error: missingStageMessage(wb) };
  await ctx.reader.action(wb.integrationId, "PUT", `${applicationPath(wb)}/stage`, { stage_id: stageId });
  await update(ctx, wb, { stageMovedAt: ctx.now() });
  return { moved: true, stageName };
}

/** Step 2: adds the result link (the recording, transcript or interview link), unless added already or there is none. */
async function addResultLink(ctx: Ctx, wb: WriteBackRow, result: InterviewResult): Promise<void> {
  if (wb.linkAddedAt || !result.link) return;
  await ctx.reader.action(wb.integrationId, "POST", `${applicationPath(wb)}/result-links`, {
    label: RESULT_LINK_LABEL,
    url: result.link,
    details: {
      custom_field_name_prefix: "hirebridge",
      attributes: [
        { key: "status", value: result.status },
        { key: "outcome", value: wb.outcome },
        ...(result.score !== null ? [{ key: "score", value: String(result.score) }] : []),
      ],
    },
  });
  await update(ctx, wb, { linkAddedAt: ctx.now() });
}

/** Step 3: adds the note, naming the stage when the application moved; unless added already. */
async function addNote(ctx: Ctx, wb: WriteBackRow, result: InterviewResult, movedTo: string | null): Promise<void> {
  if (wb.noteAddedAt) return;
  await ctx.reader.action(wb.integrationId, "POST", `${applicationPath(wb)}/notes`, {
    content: noteText(wb, result.status, result.score, result.minScore, result.feedback, movedTo),
    content_type: "PLAIN_TEXT",
  });
  await update(ctx, wb, { noteAddedAt: ctx.now() });
}

/** The three steps, each recorded as it succeeds so a retried job repeats none; answers what could not be done. */
async function sendSteps(ctx: Ctx, wb: WriteBackRow, result: InterviewResult): Promise<string[]> {
  if (wb.assessmentOrderId) {
    if (wb.linkAddedAt) return [];
    if (!ctx.orderResult) return ["assessment order results are not written by this process"];
    await ctx.orderResult(wb, result);
    // The order has its result: a retry after this point must not send it again.
    await update(ctx, wb, { linkAddedAt: ctx.now() });
    return [];
  }
  const { moved, stageName, error } = await moveStage(ctx, wb, result);
  await addResultLink(ctx, wb, result);
  await addNote(ctx, wb, result, moved ? (stageName ?? wb.targetStage) : null);
  return error ? [error] : [];
}

/** The worker. Retryable failures rethrow (the queue backs off); permanent ones are recorded. */
async function run(ctx: Ctx, id: string, attempt: { last: boolean }): Promise<void> {
  const wb = await findWriteBack(ctx.db, id);
  if (!wb || isFinalWriteBack(wb.state)) return;
  const log = ctx.logger.child({ write_back: id, integration_id: wb.integrationId });
  const result = await sendable(ctx, wb, log);
  if (!result) return;
  await countWriteBackAttempt(ctx.db, id);
  const started = { application_id: wb.applicationId, outcome: wb.outcome, target_stage: wb.targetStage };
  log.info({ ...started, attempt: wb.attempts + 1 }, "write-back started");
  let errors: string[];
  try {
    errors = await sendSteps(ctx, wb, result);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (isPermanentUpstreamError(err) || attempt.last) {
      await update(ctx, wb, { state: "failed", lastError: message });
      log.error({ reason: message }, "write-back failed");
      return;
    }
    await update(ctx, wb, { lastError: message });
    log.warn({ reason: message }, "write-back interrupted; it is retried");
    throw err;
  }
  if (errors.length) {
    await update(ctx, wb, { state: "failed", lastError: errors.join("; ") });
    log.warn({ reason: errors.join("; ") }, "write-back failed");
    return;
  }
  await update(ctx, wb, { state: "done", lastError: null });
  log.info(started, "write-back finished");
}

/** Write-backs held while the integration was not ACTIVE go out again. */
async function resumePaused(ctx: Ctx, integrationId: string): Promise<number> {
  const ids = await resumePausedWriteBacks(ctx.db, integrationId, ctx.now());
  for (const id of ids) await ctx.queue.send(QUEUES.writeBack, { id });
  return ids.length;
}

/** The integration is gone: pending write-backs can never happen. */
async function abandon(ctx: Ctx, integrationId: string, reason: string): Promise<void> {
  const failed = await ctx.db.transaction(async (tx) => {
    const rows = await failOpenWriteBacks(tx, integrationId, reason, ctx.now());
    await ctx.events.record(tx, rows.map(writeBackSettled));
    return rows;
  });
  ctx.events.committed(failed.map((wb) => wb.orgId));
}

/**
 * Interview results written back to the ATS: the worker moves the application, adds the result link
 * and the note, recording each step as it succeeds, so a retried job repeats none of them.
 */
export function createWriteBack(deps: WriteBackDeps) {
  const ctx: Ctx = { ...deps, now: deps.now ?? (() => new Date()), events: deps.events ?? NO_EVENTS_OUT };
  return {
    run: (id: string, attempt: { last: boolean }) => run(ctx, id, attempt),
    resumePaused: (integrationId: string) => resumePaused(ctx, integrationId),
    abandon: (integrationId: string, reason: string) => abandon(ctx, integrationId, reason),
  };
}
export type WriteBack = ReturnType<typeof createWriteBack>;

function noteText(
  wb: WriteBackRow,
  status: string,
  score: number | null,
  minScore: number | null,
  feedback: string | null,
  stageName: string | null,
): string {
  const verdict = { passed: "passed", rejected: "did not pass", needs_review: "needs a review" }[wb.outcome];
  const lines = [
    `Hirebridge AI interview: ${status}${score !== null ? `, score ${score}` : ""}${minScore !== null ? ` (minimum ${minScore})` : ""}. The candidate ${verdict}.`,
  ];
  // A correction says so first: the ATS holds the earlier result's note too.
  if (wb.correctionReason) lines.unshift(`Correction of an earlier Hirebridge result: ${cut(wb.correctionReason, 500)}`);
  if (stageName) lines.push(`Moved to stage: ${stageName}.`);
  if (feedback) lines.push(`Feedback: ${cut(feedback, 4000)}`);
  return lines.join("\n");
}
