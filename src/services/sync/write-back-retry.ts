import { and, eq } from "drizzle-orm";
import type { Db } from "../../shared/db/database.js";
import { conflict, notFound } from "../../shared/errors.js";
import { PRIORITY, QUEUES, type JobQueue } from "../../shared/jobs/queue.js";
import type { Queryable } from "../../shared/db/database.js";
import type { WriteBackSource } from "../../shared/ports/recruiting-sync.js";
import { writeBacks, type WriteBackRow } from "./sync.tables.js";
import { stageForOutcome } from "./write-back.js";
import { assertWriteBackTransition } from "./write-back.states.js";
import { updateWriteBack, type WriteBackPatch } from "./write-backs.repository.js";

/** Which write-back, of which integration of which organisation. */
export type WriteBackRef = { integrationId: string; orgId: string; writeBackId: string };

export type WriteBackRetryDeps = { db: Db; queue: Pick<JobQueue, "send">; source: WriteBackSource<Queryable>; now?: () => Date };

/**
 * An operator's retry of a failed write-back (from the integration's trail): back to `pending` with
 * its job queued, in one transaction. The steps it recorded stay done, so the retry repeats none of
 * them. When its stage was not moved yet, the stage is taken again from the position's mapping as it
 * is now (the usual fix is to map the stage again), and resolved again against the job's stages.
 * 404 when it is not a write-back of this organisation's integration; 409 when it is not failed.
 */
export async function retryWriteBack(deps: WriteBackRetryDeps, ref: WriteBackRef): Promise<WriteBackRow> {
  const now = deps.now ?? (() => new Date());
  return deps.db.transaction(async (tx) => {
    const [wb] = await tx
      .select()
      .from(writeBacks)
      .where(and(eq(writeBacks.id, ref.writeBackId), eq(writeBacks.integrationId, ref.integrationId), eq(writeBacks.orgId, ref.orgId)))
      .for("update");
    if (!wb) throw notFound("Write-back not found");
    if (wb.state !== "failed") throw conflict(`Only a failed write-back can be retried; this one is ${wb.state}`);
    assertWriteBackTransition(wb.state, "pending");
    const patch: WriteBackPatch = { state: "pending", lastError: null };
    if (!wb.stageMovedAt) {
      const current = await deps.source.result(tx, wb.positionId, wb.candidateId);
      if (current) patch.targetStage = stageForOutcome(wb.outcome, current.stages);
      patch.targetStageId = null;
      patch.targetStageName = null;
    }
    await updateWriteBack(tx, wb.id, patch, now());
    await deps.queue.send(QUEUES.writeBack, { id: wb.id }, { tx, priority: PRIORITY.interactive, orgId: wb.orgId });
    return { ...wb, ...patch, updatedAt: now() };
  });
}
