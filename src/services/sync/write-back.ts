import type { Logger } from "pino";
import type { Job } from "../../contracts/upstream/index.js";
import type { Db, Tx } from "../../shared/db/database.js";
import { QUEUES, type JobQueue } from "../../shared/jobs/queue.js";
import { isPermanentUpstreamError, type AtsReader } from "./ats-reader.js";
import { cut } from "./html-to-text.js";
import type { IntegrationLookup, InterviewEnded, WriteBackSource } from "./ports.js";
import type { WriteBackRow } from "./sync.tables.js";
import { matchStage } from "./stage-match.js";
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
  integrations: Pick<IntegrationLookup, "find">;
  source: WriteBackSource;
  logger: Logger;
  now?: () => Date;
};

const RESULT_LINK_LABEL = "Hirebridge AI interview";

/** graded with score >= min_score passes; graded below fails; errored or cancelled needs a person. */
export function outcomeOf(event: Pick<InterviewEnded, "to">, score: number | null, minScore: number | null) {
  if (event.to !== "graded") return "needs_review" as const;
  if (minScore === null) return score === null ? ("needs_review" as const) : ("passed" as const);
  return score !== null && score >= minScore ? ("passed" as const) : ("rejected" as const);
}

/**
 * The recruiting API's `onInterviewEnded` hook: inside the transaction that ends an interview, it
 * records the write-back and enqueues its job, so the write-back exists exactly when the result does.
 */
export function writeBackHook(queue: JobQueue, source: WriteBackSource, now: () => Date = () => new Date()) {
  return async function onInterviewEnded(event: InterviewEnded, tx: Tx): Promise<void> {
    const target = await source.target(tx, event.positionId, event.candidateId);
    if (!target?.autoUpdateStages || !target.integrationId || !target.applicationId) return;
    const outcome = outcomeOf(event, event.interview.score, target.minScore);
    const stage = outcome === "passed" ? target.passedStage : outcome === "rejected" ? target.rejectedStage : target.needsReviewedStage;
    const when = event.interview.graded_at ?? event.interview.end_time ?? now().toISOString();
    const id = await insertWriteBack(tx, {
      eventKey: `${event.interviewId}:${event.to}:${when}`,
      orgId: event.organizationId,
      integrationId: target.integrationId,
      applicationId: target.applicationId,
      positionId: event.positionId,
      candidateId: event.candidateId,
      interviewId: event.interviewId,
      outcome,
      targetStage: stage,
    });
    if (id) await queue.send(QUEUES.writeBack, { id }, { tx });
  };
}

/**
 * Interview results written back to the ATS: the worker moves the application, adds the result link
 * and the note, recording each step as it succeeds, so a retried job repeats none of them.
 */
export function createWriteBack(deps: WriteBackDeps) {
  const now = deps.now ?? (() => new Date());

  /** Records a step or a state change of `wb`, checking the state's transition. */
  async function update(wb: WriteBackRow, patch: WriteBackPatch): Promise<void> {
    if (patch.state) assertWriteBackTransition(wb.state, patch.state);
    await updateWriteBack(deps.db, wb.id, patch, now());
  }

  /** The worker. Retryable failures rethrow (the queue backs off); permanent ones are recorded. */
  async function run(id: string, attempt: { last: boolean }): Promise<void> {
    const wb = await findWriteBack(deps.db, id);
    if (!wb || isFinalWriteBack(wb.state)) return;
    const log = deps.logger.child({ write_back: id, integration_id: wb.integrationId });
    const integration = await deps.integrations.find(wb.integrationId);
    if (!integration || integration.deletedAt) {
      await update(wb, { state: "failed", lastError: "integration deleted" });
      log.warn({ reason: "integration deleted" }, "write-back failed");
      return;
    }
    if (integration.status && integration.status !== "ACTIVE") {
      const reason = `paused: integration is ${integration.status}`;
      await update(wb, { state: "paused", lastError: reason });
      log.info({ reason }, "write-back paused");
      return;
    }
    const result = await deps.source.result(deps.db, wb.positionId, wb.candidateId);
    if (!result) {
      await update(wb, { state: "failed", lastError: "position or candidate no longer exists" });
      log.warn({ reason: "position or candidate no longer exists" }, "write-back failed");
      return;
    }
    await countWriteBackAttempt(deps.db, id);
    log.info(
      { application_id: wb.applicationId, outcome: wb.outcome, target_stage: wb.targetStage, attempt: wb.attempts + 1 },
      "write-back started",
    );
    const errors: string[] = [];
    const appPath = `/ats/applications/${encodeURIComponent(wb.applicationId)}`;
    try {
      let stageName: string | null = null;
      let moved = wb.stageMovedAt !== null;
      if (!wb.stageMovedAt && wb.targetStage && result.upstreamJobId) {
        let stageId = wb.targetStageId;
        if (!stageId) {
          const jobs = await deps.reader.page<Job>(wb.integrationId, "/ats/jobs", { ids: result.upstreamJobId, include_deleted: "true" });
          const stage = matchStage(jobs.results[0]?.stages ?? [], wb.targetStage);
          stageId = stage?.id ?? null;
          stageName = stage?.name ?? null;
          // Resolved once: a retry (e.g. after a 429) goes straight to the move.
          if (stageId) await update(wb, { targetStageId: stageId });
        }
        if (!stageId) {
          errors.push(`stage '${wb.targetStage}' is not a stage of the job`);
        } else {
          await deps.reader.action(wb.integrationId, "PUT", `${appPath}/stage`, { stage_id: stageId });
          await update(wb, { stageMovedAt: now() });
          moved = true;
        }
      }
      if (!wb.linkAddedAt && result.link) {
        await deps.reader.action(wb.integrationId, "POST", `${appPath}/result-links`, {
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
        await update(wb, { linkAddedAt: now() });
      }
      if (!wb.noteAddedAt) {
        await deps.reader.action(wb.integrationId, "POST", `${appPath}/notes`, {
          content: noteText(
            wb,
            result.status,
            result.score,
            result.minScore,
            result.feedback,
            moved ? (stageName ?? wb.targetStage) : null,
          ),
          content_type: "PLAIN_TEXT",
        });
        await update(wb, { noteAddedAt: now() });
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (isPermanentUpstreamError(err) || attempt.last) {
        await update(wb, { state: "failed", lastError: message });
        log.error({ reason: message }, "write-back failed");
        return;
      }
      await update(wb, { lastError: message });
      log.warn({ reason: message }, "write-back interrupted; it is retried");
      throw err;
    }
    if (errors.length) {
      await update(wb, { state: "failed", lastError: errors.join("; ") });
      log.warn({ reason: errors.join("; ") }, "write-back failed");
      return;
    }
    await update(wb, { state: "done", lastError: null });
    log.info({ application_id: wb.applicationId, outcome: wb.outcome, target_stage: wb.targetStage }, "write-back finished");
  }

  /** Write-backs held while the integration was not ACTIVE go out again. */
  async function resumePaused(integrationId: string): Promise<number> {
    const ids = await resumePausedWriteBacks(deps.db, integrationId, now());
    for (const id of ids) await deps.queue.send(QUEUES.writeBack, { id });
    return ids.length;
  }

  /** The integration is gone: pending write-backs can never happen. */
  async function abandon(integrationId: string, reason: string): Promise<void> {
    await failOpenWriteBacks(deps.db, integrationId, reason, now());
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
