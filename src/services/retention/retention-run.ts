import type { Logger } from "pino";
import { systemActor } from "../../shared/auth/audit-actor.js";
import type { Database } from "../../shared/db/database.js";
import type { AuditActor } from "../../shared/ports/audit-log.js";
import type { RetentionConfig } from "./config.js";
import { type DueCandidate, finishRun, type PurgeKind, purgeBatch, selectDueCandidates, startRun } from "./retention.repository.js";

/**
 * Erases candidates of one organisation through the one erasure path (issue 41's
 * `eraseCandidates`, handed in by src/runtime/wiring.ts); answers how many were erased.
 */
export type EraseCandidates = (orgId: string, candidateIds: string[], opts: { actor: AuditActor; reason: string }) => Promise<number>;

export type RetentionDeps = {
  config: Pick<
    RetentionConfig,
    | "RETENTION_MAX_CANDIDATES_PER_RUN"
    | "RETENTION_BATCH_SIZE"
    | "RETENTION_MAX_BATCHES_PER_RUN"
    | "RETENTION_WEBHOOK_EVENTS_DAYS"
    | "RETENTION_SYNC_RUNS_DAYS"
    | "RETENTION_WRITE_BACKS_DAYS"
    | "RETENTION_ACTIVITY_DAYS"
    | "RETENTION_IDEMPOTENCY_KEYS_HOURS"
    | "RETENTION_RUNS_DAYS"
  >;
  database: Database;
  logger: Logger;
  /** The erasure path of the API's DELETE of a candidate (src/runtime/wiring.ts's candidateErasure). */
  erase: EraseCandidates;
  /** Other modules' purges the run drives (the audit log's, by its own retention): kind → purge at `now`, answering rows deleted. */
  extraPurges?: Record<string, (now: Date) => Promise<number>>;
};

/** What one run did: rows erased or purged by kind, and whether a bound stopped it. */
export type RetentionRunResult = { id: string; counts: Record<string, number>; truncated: boolean };

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** How long each operational kind is kept, ms. */
function keptFor(c: RetentionDeps["config"]): Record<PurgeKind, number> {
  return {
    webhook_events: c.RETENTION_WEBHOOK_EVENTS_DAYS * DAY_MS,
    sync_runs: c.RETENTION_SYNC_RUNS_DAYS * DAY_MS,
    write_backs: c.RETENTION_WRITE_BACKS_DAYS * DAY_MS,
    activity: c.RETENTION_ACTIVITY_DAYS * DAY_MS,
    idempotency_keys: c.RETENTION_IDEMPOTENCY_KEYS_HOURS * HOUR_MS,
    retention_runs: c.RETENTION_RUNS_DAYS * DAY_MS,
  };
}

/** The call site of the erasure path: the due candidates, by organisation and reason, in batches. */
async function eraseDue(deps: RetentionDeps, due: DueCandidate[], counts: Record<string, number>): Promise<void> {
  const groups = new Map<string, string[]>();
  for (const c of due) {
    const key = `${c.orgId}\n${c.reason}`;
    groups.set(key, [...(groups.get(key) ?? []), c.id]);
  }
  const actor = systemActor("retention");
  const batch = deps.config.RETENTION_BATCH_SIZE;
  for (const [key, ids] of groups) {
    const [orgId, reason] = key.split("\n") as [string, string];
    for (let i = 0; i < ids.length; i += batch) {
      const chunk = ids.slice(i, i + batch);
      // The API's erasure path: a tombstone, an audit entry and a candidate.erased event each.
      const erased = await deps.erase(orgId, chunk, { actor, reason: `retention:${reason}` });
      counts["candidates"] = (counts["candidates"] ?? 0) + erased;
      counts[`candidates.${reason}`] = (counts[`candidates.${reason}`] ?? 0) + erased;
    }
  }
}

/** Purges each operational kind older than its retention, in batches, at most RETENTION_MAX_BATCHES_PER_RUN each. */
async function purgeOperational(deps: RetentionDeps, now: Date, counts: Record<string, number>): Promise<boolean> {
  const { RETENTION_BATCH_SIZE: batch, RETENTION_MAX_BATCHES_PER_RUN: maxBatches } = deps.config;
  let truncated = false;
  for (const [kind, ms] of Object.entries(keptFor(deps.config)) as [PurgeKind, number][]) {
    const cutoff = new Date(now.getTime() - ms);
    let total = 0;
    let batches = 0;
    let last = batch;
    while (last === batch && batches < maxBatches) {
      last = await purgeBatch(deps.database.db, kind, cutoff, batch);
      total += last;
      batches++;
    }
    if (last === batch) truncated = true;
    counts[kind] = total;
  }
  for (const [kind, purge] of Object.entries(deps.extraPurges ?? {})) counts[kind] = await purge(now);
  return truncated;
}

/**
 * One retention run at `now`: erases the candidates due (at most RETENTION_MAX_CANDIDATES_PER_RUN),
 * purges the operational data past its retention, and records the run with its counts by kind.
 */
export async function runRetention(deps: RetentionDeps, now: Date = new Date()): Promise<RetentionRunResult> {
  const id = await startRun(deps.database.db, now);
  const counts: Record<string, number> = { candidates: 0 };
  let truncated = false;
  try {
    const limit = deps.config.RETENTION_MAX_CANDIDATES_PER_RUN;
    const due = await selectDueCandidates(deps.database.db, now, limit);
    await eraseDue(deps, due, counts);
    truncated = due.length >= limit;
    truncated = (await purgeOperational(deps, now, counts)) || truncated;
  } catch (err) {
    // The error's code or class only: a database message can quote a row's values (personal data).
    const error = (err as { code?: string }).code ?? (err instanceof Error ? err.name : "error");
    await finishRun(deps.database.db, id, { counts, truncated, error });
    throw err;
  }
  await finishRun(deps.database.db, id, { counts, truncated, error: null });
  deps.logger.info({ run: id, counts, truncated }, "retention run finished");
  return { id, counts, truncated };
}
