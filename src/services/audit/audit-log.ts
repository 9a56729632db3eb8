import type { Db, Queryable } from "../../shared/db/database.js";
import { uuidv7s } from "../../shared/db/uuid7.js";
import type { AuditEntry, AuditLog } from "../../shared/ports/audit-log.js";
import { appendEntries, appendIfHead, lockHead, purgeBefore, readHead } from "./audit.repository.js";
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

/** The entries checked and grouped by organisation, organisations in order (the order locks are taken in). */
function byOrganisation(entries: readonly AuditEntry[]): [string, AuditEntry[]][] {
  const byOrg = new Map<string, AuditEntry[]>();
  for (const e of entries.map(checked)) {
    const org = e.orgId.toLowerCase();
    byOrg.set(org, [...(byOrg.get(org) ?? []), e]);
  }
  return [...byOrg].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

type Head = { seq: number; hash: string };
/** Heads remembered per process (the last one this process wrote), at most this many. */
const HEADS_KEPT = 10_000;
/** Optimistic appends tried before taking the chain's lock in a transaction. */
const OPTIMISTIC_TRIES = 4;

/**
 * The AuditLog port over the database. `record`: each organisation's head is locked (in
 * organisation order, so two transactions never wait on each other crosswise), its entries chained
 * on it in JS (chain.ts) and inserted with the head moved, all in the caller's transaction.
 * `appendCommitted`: the entries are chained on the head this process last wrote and go in with
 * the head moved in one statement only if the head (seq and hash) is still that one; else the head
 * is read again and the entries chained anew (after a few tries, under the lock in a transaction of
 * their own). For the group commit's creates, where a transaction per batch (five round trips)
 * held each create's answer long enough to halve how many shared a commit (audit-trail.ts).
 */
export function createAuditLog(clock: () => Date = () => new Date()): AuditLog<Queryable, Db> {
  const heads = new Map<string, Head>();
  const remember = (org: string, head: Head) => {
    heads.delete(org);
    heads.set(org, head);
    if (heads.size > HEADS_KEPT) heads.delete(heads.keys().next().value!);
  };

  async function record(q: Queryable, entries: AuditEntry | readonly AuditEntry[]): Promise<void> {
    const list = (Array.isArray(entries) ? entries : [entries]) as AuditEntry[];
    for (const [org, orgEntries] of byOrganisation(list)) {
      const head = await lockHead(q, org);
      // The time is read once the chain is ours: entries of one organisation keep their order in time.
      const rows = chained(head, orgEntries, clock());
      await appendEntries(q, org, rows);
      heads.delete(org);
    }
  }

  async function appendOptimistically(db: Db, org: string, entries: AuditEntry[]): Promise<boolean> {
    for (let i = 0; i < OPTIMISTIC_TRIES; i++) {
      const head = heads.get(org) ?? (await readHead(db, org));
      if (!head) continue;
      const rows = chained(head, entries, clock());
      if (await appendIfHead(db, org, head, rows)) {
        remember(org, { seq: rows.at(-1)!.seq, hash: rows.at(-1)!.hash });
        return true;
      }
      // Another writer moved the head: read it again.
      heads.delete(org);
    }
    return false;
  }

  return {
    record,
    async appendCommitted(db, entries) {
      for (const [org, orgEntries] of byOrganisation(entries)) {
        if (!(await appendOptimistically(db, org, orgEntries))) await db.transaction((tx) => record(tx, orgEntries));
      }
    },
  } satisfies AuditLog<Queryable, Db>;
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
