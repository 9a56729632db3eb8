import type { Queryable } from "../../shared/db/database.js";
import { chainPage, findHead } from "./audit.repository.js";
import type { AuditRow } from "./audit.tables.js";
import { chainHash } from "./chain.js";

const PAGE = 1000;

/** What a verification found: `broken` names the first entry that does not hold, null when all do. */
export type ChainReport = {
  ok: boolean;
  /** Entries checked. */
  checked: number;
  /** seq of the first and last entry kept (null when none). */
  firstSeq: number | null;
  lastSeq: number | null;
  broken: { seq: number; id: string | null; reason: string } | null;
};

/** Why `row` does not follow `prev` (its predecessor in the chain), or null when it does. */
function flaw(row: AuditRow, prev: { seq: number; hash: string } | null): string | null {
  if (prev && row.seq !== prev.seq + 1) return `entries ${prev.seq + 1}..${row.seq - 1} are missing`;
  if (prev && row.prevHash !== prev.hash) return "its prev_hash is not the hash of the entry before it";
  const { hash, prevHash, ...fields } = row;
  if (chainHash(prevHash, fields) !== hash) return "its content does not match its hash (changed after it was recorded)";
  return null;
}

/**
 * Walks the organisation's chain from its oldest kept entry: each entry's hash must be
 * sha256(prev_hash || its canonical content), its prev_hash the hash of the entry before, its seq
 * the next one; the oldest kept must follow the purged prefix and the newest must be the head.
 * Answers the first entry that does not hold.
 */
export async function verifyChain(q: Queryable, orgId: string): Promise<ChainReport> {
  const head = await findHead(q, orgId);
  const report: ChainReport = { ok: true, checked: 0, firstSeq: null, lastSeq: null, broken: null };
  const fail = (seq: number, id: string | null, reason: string) => ({ ...report, ok: false, broken: { seq, id, reason } });
  let prev: { seq: number; hash: string } | null = null;
  for (;;) {
    const rows = await chainPage(q, orgId, prev?.seq ?? 0, PAGE);
    for (const row of rows) {
      if (!prev && row.seq !== (head?.purgedThrough ?? 0) + 1) {
        return fail(row.seq, row.id, `the chain should start at entry ${(head?.purgedThrough ?? 0) + 1}`);
      }
      const why = flaw(row, prev);
      if (why) return fail(row.seq, row.id, why);
      report.checked++;
      report.firstSeq ??= row.seq;
      report.lastSeq = row.seq;
      prev = { seq: row.seq, hash: row.hash };
    }
    if (rows.length < PAGE) break;
  }
  const headSeq = head?.seq ?? 0;
  if ((prev?.seq ?? head?.purgedThrough ?? 0) !== headSeq) {
    return fail(headSeq, null, `entries after ${prev?.seq ?? 0} up to ${headSeq} are missing`);
  }
  if (prev && head && prev.hash !== head.hash) return fail(prev.seq, null, "the newest entry is not the chain's head");
  return report;
}
