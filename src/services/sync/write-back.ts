import { and, eq, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Job } from "../../contracts/upstream/index.js";
import type { Db, Tx } from "../../shared/db/database.js";
import { findIntegration } from "../proxy/integrations/integrations.repository.js";
import { candidates } from "../recruiting/candidates/candidates.schema.js";
import { interviews } from "../recruiting/interviews/interviews.schema.js";
import { positions } from "../recruiting/positions/positions.schema.js";
import type { InterviewEndedEvent } from "../recruiting/upstream/index.js";
import { isPermanentUpstreamError, type AtsReader } from "./ats-reader.js";
import { cut } from "./html-to-text.js";
import { QUEUES, type JobQueue } from "./queue.js";
import { writeBacks, type WriteBackRow } from "./sync.schema.js";
import { matchStage } from "./stage-match.js";

export type WriteBackDeps = { db: Db; queue: JobQueue; reader: AtsReader; logger: Logger; now?: () => Date };

const RESULT_LINK_LABEL = "Hirebridge AI interview";

/** graded with score >= min_score passes; graded below fails; errored or cancelled needs a person. */
export function outcomeOf(event: Pick<InterviewEndedEvent, "to">, score: number | null, minScore: number | null) {
  if (event.to !== "graded") return "needs_review" as const;
  if (minScore === null) return score === null ? ("needs_review" as const) : ("passed" as const);
  return score !== null && score >= minScore ? ("passed" as const) : ("rejected" as const);
}

/**
 * The recruiting API's `onInterviewEnded` hook: inside the transaction that ends an interview, it
 * records the write-back and enqueues its job, so the write-back exists exactly when the result does.
 */
export function writeBackHook(queue: JobQueue, now: () => Date = () => new Date()) {
  return async function onInterviewEnded(event: InterviewEndedEvent, tx: Tx): Promise<void> {
    const [position] = await tx.select().from(positions).where(eq(positions.id, event.positionId));
    const [candidate] = await tx
      .select({ applicationId: candidates.upstreamApplicationId })
      .from(candidates)
      .where(eq(candidates.id, event.candidateId));
    if (!position?.autoUpdateStages || !position.upstreamIntegrationId || !candidate?.applicationId) return;
    const outcome = outcomeOf(event, event.interview.score, position.minScore);
    const target = outcome === "passed" ? position.passedStage : outcome === "rejected" ? position.rejectedStage : position.needsReviewedStage;
    const when = event.interview.graded_at ?? event.interview.end_time ?? now().toISOString();
    const [row] = await tx
      .insert(writeBacks)
      .values({
        eventKey: `${event.interviewId}:${event.to}:${when}`,
        orgId: event.organizationId,
        integrationId: position.upstreamIntegrationId,
        applicationId: candidate.applicationId,
        positionId: position.id,
        candidateId: event.candidateId,
        interviewId: event.interviewId,
        outcome,
        targetStage: target,
      })
      .onConflictDoNothing()
      .returning({ id: writeBacks.id });
    if (row) await queue.send(QUEUES.writeBack, { id: row.id }, { tx });
  };

}

/**
 * Interview results written back to the ATS: the worker moves the application, adds the result link
 * and the note, recording each step as it succeeds, so a retried job repeats none of them.
 */
export function createWriteBack(deps: WriteBackDeps) {
  const now = deps.now ?? (() => new Date());

  async function update(id: string, patch: Partial<WriteBackRow>): Promise<void> {
    await deps.db.update(writeBacks).set({ ...patch, updatedAt: now() }).where(eq(writeBacks.id, id));
  }

  /** The worker. Retryable failures rethrow (the queue backs off); permanent ones are recorded. */
  async function run(id: string, attempt: { last: boolean }): Promise<void> {
    const [wb] = await deps.db.select().from(writeBacks).where(eq(writeBacks.id, id));
    if (!wb || wb.state === "done" || wb.state === "failed") return;
    const log = deps.logger.child({ write_back: id, integration_id: wb.integrationId });
    const integration = await findIntegration(deps.db, wb.integrationId);
    if (!integration || integration.deletedAt) {
      await update(id, { state: "failed", lastError: "integration deleted" });
      log.warn({ reason: "integration deleted" }, "write-back failed");
      return;
    }
    if (integration.status && integration.status !== "ACTIVE") {
      const reason = `paused: integration is ${integration.status}`;
      await update(id, { state: "paused", lastError: reason });
      log.info({ reason }, "write-back paused");
      return;
    }
    const [position] = await deps.db.select().from(positions).where(eq(positions.id, wb.positionId));
    const [interview] = await deps.db.select().from(interviews).where(eq(interviews.candidateId, wb.candidateId));
    if (!position || !interview) {
      await update(id, { state: "failed", lastError: "position or candidate no longer exists" });
      log.warn({ reason: "position or candidate no longer exists" }, "write-back failed");
      return;
    }
    await deps.db.execute(sql`update write_backs set attempts = attempts + 1 where id = ${id}`);
    log.info({ application_id: wb.applicationId, outcome: wb.outcome, target_stage: wb.targetStage, attempt: wb.attempts + 1 }, "write-back started");
    const errors: string[] = [];
    const appPath = `/ats/applications/${encodeURIComponent(wb.applicationId)}`;
    try {
      let stageName: string | null = null;
      let moved = wb.stageMovedAt !== null;
      if (!wb.stageMovedAt && wb.targetStage && position.upstreamJobIdId) {
        let stageId = wb.targetStageId;
        if (!stageId) {
          const jobs = await deps.reader.page<Job>(wb.integrationId, "/ats/jobs", { ids: position.upstreamJobIdId, include_deleted: "true" });
          const stage = matchStage(jobs.results[0]?.stages ?? [], wb.targetStage);
          stageId = stage?.id ?? null;
          stageName = stage?.name ?? null;
          // Resolved once: a retry (e.g. after a 429) goes straight to the move.
          if (stageId) await update(id, { targetStageId: stageId });
        }
        if (!stageId) {
          errors.push(`stage '${wb.targetStage}' is not a stage of the job`);
        } else {
          await deps.reader.action(wb.integrationId, "PUT", `${appPath}/stage`, { stage_id: stageId });
          await update(id, { stageMovedAt: now() });
          moved = true;
        }
      }
      const link = interview.recordingLink ?? interview.transcriptLink ?? interview.interviewLink;
      if (!wb.linkAddedAt && link) {
        await deps.reader.action(wb.integrationId, "POST", `${appPath}/result-links`, {
          label: RESULT_LINK_LABEL,
          url: link,
          details: {
            custom_field_name_prefix: "hirebridge",
            attributes: [
              { key: "status", value: interview.status },
              { key: "outcome", value: wb.outcome },
              ...(interview.score !== null ? [{ key: "score", value: String(interview.score) }] : []),
            ],
          },
        });
        await update(id, { linkAddedAt: now() });
      }
      if (!wb.noteAddedAt) {
        await deps.reader.action(wb.integrationId, "POST", `${appPath}/notes`, {
          content: noteText(wb, interview.status, interview.score, position.minScore, interview.feedback, moved ? (stageName ?? wb.targetStage) : null),
          content_type: "PLAIN_TEXT",
        });
        await update(id, { noteAddedAt: now() });
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (isPermanentUpstreamError(err) || attempt.last) {
        await update(id, { state: "failed", lastError: message });
        log.error({ reason: message }, "write-back failed");
        return;
      }
      await update(id, { lastError: message });
      log.warn({ reason: message }, "write-back interrupted; it is retried");
      throw err;
    }
    if (errors.length) {
      await update(id, { state: "failed", lastError: errors.join("; ") });
      log.warn({ reason: errors.join("; ") }, "write-back failed");
      return;
    }
    await update(id, { state: "done", lastError: null });
    log.info({ application_id: wb.applicationId, outcome: wb.outcome, target_stage: wb.targetStage }, "write-back finished");
  }

  /** Write-backs held while the integration was not ACTIVE go out again. */
  async function resumePaused(integrationId: string): Promise<number> {
    const rows = await deps.db
      .update(writeBacks)
      .set({ state: "pending", updatedAt: now() })
      .where(and(eq(writeBacks.integrationId, integrationId), eq(writeBacks.state, "paused")))
      .returning({ id: writeBacks.id });
    for (const r of rows) await deps.queue.send(QUEUES.writeBack, { id: r.id });
    return rows.length;
  }

  /** The integration is gone: pending write-backs can never happen. */
  async function abandon(integrationId: string, reason: string): Promise<void> {
    await deps.db
      .update(writeBacks)
      .set({ state: "failed", lastError: reason, updatedAt: now() })
      .where(and(eq(writeBacks.integrationId, integrationId), sql`${writeBacks.state} in ('pending', 'paused')`));
  }

  return { run, resumePaused, abandon };
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
  if (stageName) lines.push(`Moved to stage: ${stageName}.`);
  if (feedback) lines.push(`Feedback: ${cut(feedback, 4000)}`);
  return lines.join("\n");
}
