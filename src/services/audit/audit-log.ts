import type { Db, Queryable } from "../../shared/db/database.js";
import { uuidv7s } from "../../shared/db/uuid7.js";
import type { AuditEntry, AuditLog } from "../../shared/ports/audit-log.js";
import { appendEntries, lockHead, purgeBefore } from "./audit.repository.js";
import type { AuditRow } from "./audit.tables.js";
import { chainHash } from "./chain.js";

const ACTION = /^[a-z][a-z_]*\.[a-z][a-z_]*$/;
/** Default of AUDIT_RETENTION_DAYS. */
export const AUDIT_RETENTION_DAYS_DEFAULT = 400;

/** Refuses what could carry text into the log: an unknown action shape, or a detail that is not a number or boolean. */
function checked(e: AuditEntry): AuditEntry {
  if (!ACTION.test(e.action) || !/^[a-z][a-z_]*$/.test(e.resourceType)) throw new Error(`bad audit action ${e.action}`);
  for (const [k, v] of Object.entries(e.details ?? {})) {
    if (v !== null && typeof v !== "number" && typeof v !== "boolean") throw new Error(`audit detail ${k} is not a number`);
  }
  return e;
}

/** The rows of one organisation's entries, chained onto `head`. */
function chained(head: { seq: number; hash: string }, entries: AuditEntry[], now: Date): AuditRow[] {
  const ids = uuidv7s(entries.length, now.getTime());
  let { seq, hash } = head;
  return entries.map((e, i) => {
    const fields = {
      organizationId: e.orgId.toLowerCase(),
      seq: ++seq,
      id: ids[i]!,
      occurredAt: now,
      actorSub: e.actor.sub,
      actorClient: e.actor.clientId,
      action: e.action,
      resourceType: e.resourceType,
      resourceIds: e.resourceIds.map((id) => id.toLowerCase()),
      requestId: e.actor.requestId,
      sourceAddress: e.actor.sourceAddress,
      scoreBefore: e.scoreBefore ?? null,
      scoreAfter: e.scoreAfter ?? null,
      details: { ...e.details },
    };
    const row = { ...fields, prevHash: hash, hash: chainHash(hash, fields) };
    hash = row.hash;
    return row;
  });
}

/**
 * The AuditLog port over the database: each organisation's head is locked (in organisation order,
 * so two transactions never wait on each other crosswise), its entries chained on it in JS
 * (chain.ts) and inserted with the head moved, all in the caller's transaction.
 */
export function createAuditLog(clock: () => Date = () => new Date()): AuditLog<Queryable> {
  return {
    async record(q, entries) {
      const list = (Array.isArray(entries) ? entries : [entries]) as AuditEntry[];
      if (list.length === 0) return;
      const byOrg = new Map<string, AuditEntry[]>();
      for (const e of list.map(checked)) {
        const org = e.orgId.toLowerCase();
        byOrg.set(org, [...(byOrg.get(org) ?? []), e]);
      }
      for (const org of [...byOrg.keys()].sort()) {
        const head = await lockHead(q, org);
        // The time is read once the chain is ours: entries of one organisation keep their order in time.
        await appendEntries(q, org, chained(head, byOrg.get(org)!, clock()));
      }
    },
  } satisfies AuditLog<Queryable>;
}

/**
 * Deletes the entries older than `retentionDays` before `now` (per organisation the oldest part of
 * its chain; what stays still verifies: docs/privacy.md). For the retention job to schedule;
 * answers how many entries went. Bounded per call (`orgLimit` organisations): call again while it
 * answers more than 0.
 */
export function purgeExpired(db: Db, now: Date, retentionDays = AUDIT_RETENTION_DAYS_DEFAULT, orgLimit = 1000): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  return db.transaction((tx) => purgeBefore(tx, cutoff, orgLimit));
}
