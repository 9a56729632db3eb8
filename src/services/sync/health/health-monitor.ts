import type { Logger } from "pino";
import type { Db, Tx } from "../../../shared/db/database.js";
import type { IntegrationLookup } from "../../../shared/ports/integrations.js";
import { ensureHealthRows, loadHealthFacts, saveHealth, storedHealth } from "./health.repository.js";
import { healthOf, type Health, type HealthState } from "./integration-health.js";

/** A change of an integration's health state (ok, degraded, broken), as recorded. */
export type HealthChange = {
  integrationId: string;
  orgId: string;
  from: HealthState;
  to: HealthState;
  reason: string | null;
  at: Date;
};

/**
 * Told of each change of an integration's health state, inside the transaction that records it
 * (so a listener that writes, such as an outbox of outbound webhook events, commits with it or not
 * at all). The outbound webhooks' `integration.health_changed` is emitted from here.
 */
export type OnHealthChanged = (change: HealthChange, tx: Tx) => Promise<void>;

/** An integration whose health is wanted, with its state as the upstream last reported it. */
export type HealthSubject = { id: string; orgId: string; status: string | null };

export type HealthMonitorDeps = {
  db: Db;
  integrations: Pick<IntegrationLookup, "find">;
  logger: Logger;
  onHealthChanged?: OnHealthChanged | undefined;
};

const OK: Health = { state: "ok", reason: null };
const same = (a: Health, b: Health) => a.state === b.state && a.reason === b.reason;

/**
 * Integration health: computed from the records (integration-health.ts `healthOf`), the last
 * known state kept in `integration_health`, and every change detected at ONE point,
 * `recordHealth`, which hands each change of state to `onHealthChanged`. It runs after what health
 * is computed from changes (a sync job ends, a write-back or a webhook event settles, the upstream
 * reports a new state, an operator retries) and when the list shows a health that differs from
 * the recorded one (failures age out of the window with nothing else happening).
 */
export function createHealthMonitor(deps: HealthMonitorDeps) {
  const computed = async (q: Db | Tx, subjects: HealthSubject[]) => {
    const facts = await loadHealthFacts(
      q,
      subjects.map((s) => s.id),
    );
    return new Map(subjects.map((s) => [s.id, healthOf({ status: s.status, ...facts.get(s.id)! })]));
  };

  /**
   * THE point where a change of health is detected. In one transaction: the integrations' health
   * rows are locked (in id order), health is computed again under the lock, a different one is
   * saved, and each change of STATE (not of wording alone) goes to `onHealthChanged` before commit.
   */
  async function recordHealth(subjects: HealthSubject[]): Promise<HealthChange[]> {
    const sorted = [...subjects].sort((a, b) => (a.id < b.id ? -1 : 1));
    const ids = sorted.map((s) => s.id);
    const changes = await deps.db.transaction(async (tx) => {
      await ensureHealthRows(tx, sorted);
      const before = await storedHealth(tx, ids, { lock: true });
      const now = await computed(tx, sorted);
      const found: HealthChange[] = [];
      for (const s of sorted) {
        const was = before.get(s.id) ?? OK;
        const is = now.get(s.id)!;
        if (same(was, is)) continue;
        const stateChanged = was.state !== is.state;
        await saveHealth(tx, s.id, is, stateChanged);
        if (!stateChanged) continue;
        const change: HealthChange = {
          integrationId: s.id,
          orgId: s.orgId,
          from: was.state,
          to: is.state,
          reason: is.reason,
          at: new Date(),
        };
        await deps.onHealthChanged?.(change, tx);
        found.push(change);
      }
      return found;
    });
    for (const c of changes) {
      deps.logger.info({ integration_id: c.integrationId, from: c.from, to: c.to, reason: c.reason }, "integration health changed");
    }
    return changes;
  }

  /**
   * The health of these integrations as of now (what the list shows). Reads only, unless a
   * computed health differs from the recorded one: then those are recorded (recordHealth).
   */
  async function healthOfAll(subjects: HealthSubject[]): Promise<Map<string, Health>> {
    const ids = subjects.map((s) => s.id);
    const [now, stored] = await Promise.all([computed(deps.db, subjects), storedHealth(deps.db, ids)]);
    const stale = subjects.filter((s) => !same(now.get(s.id)!, stored.get(s.id) ?? OK));
    if (stale.length) await recordHealth(stale);
    return now;
  }

  /** After something health is computed from changed for the integration; the change of state, if any. */
  async function refresh(integrationId: string): Promise<HealthChange | null> {
    const row = await deps.integrations.find(integrationId);
    if (!row || row.deletedAt) return null;
    const [change] = await recordHealth([{ id: row.id, orgId: row.orgId, status: row.status }]);
    return change ?? null;
  }

  /** refresh, for work that must not fail because health could not be recorded (it is logged; the next refresh catches up). */
  async function refreshQuietly(integrationId: string): Promise<void> {
    try {
      await refresh(integrationId);
    } catch (err) {
      deps.logger.warn({ err, integration_id: integrationId }, "could not record the integration's health");
    }
  }

  return { healthOfAll, refresh, refreshQuietly, recordHealth };
}
export type HealthMonitor = ReturnType<typeof createHealthMonitor>;
