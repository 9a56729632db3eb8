/**
 * What the scale-out test reads from the shared database to judge the cluster: the stored webhook
 * events, the job queue's own records of each job (pg-boss, `<schema>_boss.job`), the sync runs and
 * their time intervals, and which process's connections are doing a sync.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Cluster } from "./cluster.js";

export type StoredEvent = { id: string; type: string; status: string; attempts: number; message: string | null };
export type QueueJob = { state: string; retry_count: number };
export type SyncRun = {
  id: string;
  integration_id: string;
  model: string;
  type: string;
  trigger: string;
  state: string;
  created_count: number;
  updated_count: number;
  pages: number;
  started_at: Date | null;
  finished_at: Date | null;
  last_error: string | null;
};

export const storedEvents = (cluster: Cluster, ids: string[]) =>
  cluster.sql<StoredEvent>("select id, type, status, attempts, message from webhook_events where id = any($1)", [ids]);

/** The queue's jobs that carried the event (one, when it was queued once). */
export const eventJobs = (cluster: Cluster, eventId: string) =>
  cluster.sql<QueueJob>(
    `select state, retry_count from ${cluster.bossSchema}.job where name = 'webhook-events' and data->>'eventId' = $1`,
    [eventId],
  );

export const syncJobs = (cluster: Cluster, integrationId: string, model: string) =>
  cluster.sql<QueueJob & { started_on: Date | null; completed_on: Date | null }>(
    `select state, retry_count, started_on, completed_on from ${cluster.bossSchema}.job where name = 'sync' and singleton_key = $1 order by created_on`,
    [`${integrationId}:${model}`],
  );

export const syncRuns = (cluster: Cluster, integrationIds: string[]) =>
  cluster.sql<SyncRun>(
    `select id, integration_id, model, type, trigger, state, created_count, updated_count, pages, started_at, finished_at, last_error
       from sync_runs where integration_id = any($1) order by integration_id, model, started_at nulls last, created_at`,
    [integrationIds],
  );

/** Waits until every sync run of the integrations is finished (none queued or running). */
export async function syncsSettled(cluster: Cluster, integrationIds: string[], timeoutMs = 60_000): Promise<SyncRun[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await syncRuns(cluster, integrationIds);
    if (runs.length > 0 && runs.every((r) => r.state !== "queued" && r.state !== "running")) return runs;
    if (Date.now() > deadline) {
      const open = runs.filter((r) => r.state === "queued" || r.state === "running");
      throw new Error(`sync runs still open after ${timeoutMs} ms: ${JSON.stringify(open)}\n${cluster.outputs()}`);
    }
    await sleep(250);
  }
}

/** Pairs of runs of one integration and model whose [started_at, finished_at] intervals overlap. */
export function overlaps(runs: SyncRun[]): string[] {
  const found: string[] = [];
  const byKey = new Map<string, SyncRun[]>();
  for (const r of runs.filter((x) => x.started_at))
    byKey.set(`${r.integration_id}:${r.model}`, [...(byKey.get(`${r.integration_id}:${r.model}`) ?? []), r]);
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.started_at!.getTime() - b.started_at!.getTime());
    for (let i = 1; i < list.length; i++) {
      const before = list[i - 1]!;
      const after = list[i]!;
      if (!before.finished_at || after.started_at!.getTime() < before.finished_at.getTime()) {
        found.push(
          `${key}: run ${after.id} started at ${after.started_at!.toISOString()} before run ${before.id} finished (${before.finished_at?.toISOString() ?? "never"})`,
        );
      }
    }
  }
  return found;
}

/**
 * Samples, every `everyMs` until stopped, whether two runs of one integration and model are
 * running at once, or the queue has two active sync jobs for one key; answers what it saw.
 */
export function watchConcurrentSyncs(cluster: Cluster, everyMs = 100): { stop(): Promise<{ samples: number; violations: string[] }> } {
  let running = true;
  let samples = 0;
  const violations: string[] = [];
  const loop = (async () => {
    while (running) {
      const [runs, jobs] = await Promise.all([
        cluster.sql<{ key: string; n: number }>(
          "select integration_id || ':' || model as key, count(*)::int as n from sync_runs where state = 'running' group by 1 having count(*) > 1",
        ),
        cluster.sql<{ key: string; n: number }>(
          `select singleton_key as key, count(*)::int as n from ${cluster.bossSchema}.job where name = 'sync' and state = 'active' group by 1 having count(*) > 1`,
        ),
      ]);
      samples++;
      for (const r of runs) violations.push(`${r.n} runs of ${r.key} running at once`);
      for (const j of jobs) violations.push(`${j.n} sync jobs of ${j.key} active at once`);
      await sleep(everyMs);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { samples, violations };
    },
  };
}
