import { createHash } from "node:crypto";
import type { AuditRow } from "./audit.tables.js";

/** The fields of a row the hash covers (all of them but the hash itself). */
export type ChainedFields = Omit<AuditRow, "hash">;

/** Details with their keys sorted, so the same facts always read the same (jsonb reorders keys). */
const sortedDetails = (d: Record<string, number | boolean | null>) =>
  Object.fromEntries(
    Object.keys(d)
      .sort()
      .map((k) => [k, d[k] ?? null]),
  );

/**
 * The canonical text of an entry: a JSON array of its fields in a fixed order (dates as ISO
 * strings to the millisecond, as they are recorded). Written once here for the append and the
 * verification, so the two cannot disagree.
 */
export function canonicalEntry(e: Omit<ChainedFields, "prevHash">): string {
  return JSON.stringify([
    e.organizationId,
    e.seq,
    e.id,
    e.occurredAt.toISOString(),
    e.actorSub,
    e.actorClient,
    e.action,
    e.resourceType,
    e.resourceIds,
    e.requestId,
    e.sourceAddress,
    e.scoreBefore,
    e.scoreAfter,
    sortedDetails(e.details),
  ]);
}

/** `sha256(prev_hash || canonical entry)`, hex. The first entry of a chain has prev_hash ''. */
export const chainHash = (prevHash: string, e: Omit<ChainedFields, "prevHash">): string =>
  createHash("sha256")
    .update(prevHash + canonicalEntry(e), "utf8")
    .digest("hex");
