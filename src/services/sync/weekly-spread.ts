import { createHash } from "node:crypto";
import { PRIORITY, QUEUES, type JobQueue } from "../../shared/jobs/queue.js";

/** One integration's weekly full sync, queued for its own moment of the week. */
export type WeeklyJob = { integrationId: string; orgId: string };

/**
 * The integration's stable offset into the week, in seconds below `spreadSeconds`: from a hash of
 * its id, so the same integration syncs at the same time each week, and a thousand of them spread
 * evenly instead of all starting when the cron fires.
 */
export function weeklyOffsetSeconds(integrationId: string, spreadSeconds: number): number {
  if (spreadSeconds <= 0) return 0;
  return createHash("sha256").update(integrationId).digest().readUInt32BE(0) % spreadSeconds;
}

/** A UUID made from `text` (its sha256): the same plan entry gets the same job id. */
function stableUuid(text: string): string {
  const h = createHash("sha256").update(text).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((Number.parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Queues one weekly job per integration at `plannedAt` + its offset, in the background priority and
 * under its organisation. The job's id comes from `planId` (the cron job's own id) and the
 * integration's: when the planning job is retried after a crash half-way, the jobs it queued
 * already are not queued twice (pg-boss skips an id it holds), and the rest still are. The plan
 * lives in the queue, so a restart during the week resumes it where it stopped. Answers how many
 * were queued.
 */
export async function planWeeklySyncs(
  queue: Pick<JobQueue, "send">,
  rows: { id: string; orgId: string }[],
  spreadSeconds: number,
  planId: string,
  plannedAt: Date,
): Promise<number> {
  let queued = 0;
  for (const r of rows) {
    const startAfter = new Date(plannedAt.getTime() + weeklyOffsetSeconds(r.id, spreadSeconds) * 1000);
    const data: WeeklyJob = { integrationId: r.id, orgId: r.orgId };
    const id = stableUuid(`${planId}:${r.id}`);
    if (await queue.send(QUEUES.weeklySync, data, { id, startAfter, priority: PRIORITY.background, orgId: r.orgId })) queued++;
  }
  return queued;
}
