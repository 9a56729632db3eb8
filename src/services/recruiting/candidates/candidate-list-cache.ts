import type { Db } from "../../../shared/db/database.js";
import { foldAllCandidateListChanges, foldCandidateListChanges, readCandidateList } from "./candidates.repository.js";

/**
 * The answers of `GET /org/{org_id}/positions/{position_id}/`, kept as the bytes sent, with the
 * list version they were built at.
 *
 * Why: a list of 1,000 candidates is ~390 KB of JSON. Building it costs Postgres ~4.2 ms of CPU,
 * and Node decoding it from the driver and encoding it again for the socket was most of the API's
 * profile (writeUtf8String, Buffer.toString, garbage collection). Clients reload the same list far
 * more often than it changes.
 *
 * Why it is correct with several instances: every request still asks the database, in one
 * statement, for the list's current version (maintained by triggers on `candidates`, so every
 * write path bumps it in the writing transaction, whichever process makes it). The stored bytes are
 * sent only when they were built at exactly that version; otherwise the same statement builds the
 * JSON (in the same snapshot as the version it answers with) and it replaces the entry. Tenancy is
 * the statement's: a position of another org has no row, whatever is stored.
 */
export class CandidateListCache {
  readonly #entries = new Map<string, { version: string; body: Buffer }>();
  #bytes = 0;
  readonly #folding = new Set<string>();

  /** `maxBytes` bounds the stored answers (least recently used go first). */
  constructor(readonly maxBytes: number) {}

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  #get(key: string): { version: string; body: Buffer } | undefined {
    const entry = this.#entries.get(key);
    if (entry) {
      // Map order is insertion order: re-inserting makes it the most recently used.
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  #set(key: string, version: string, body: Buffer): void {
    if (body.length > this.maxBytes) return;
    const old = this.#entries.get(key);
    if (old) {
      // Two requests that both missed: keep the newer version.
      if (BigInt(old.version) > BigInt(version)) return;
      this.#entries.delete(key);
      this.#bytes -= old.body.length;
    }
    this.#entries.set(key, { version, body });
    this.#bytes += body.length;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.body.length;
    }
  }

  /**
   * The list answer's bytes for the org's position, from the store when its version is current;
   * null when the position is not the org's. One round trip either way.
   */
  async answer(db: Db, orgId: string, positionId: string, onFoldError: (err: unknown) => void): Promise<Buffer | null> {
    const key = `${orgId}/${positionId.toLowerCase()}`;
    const held = this.#get(key);
    const read = await readCandidateList(db, orgId, positionId, held?.version ?? null);
    if (!read) return null;
    if (read.pending > FOLD_AFTER) this.#fold(db, key, positionId, onFoldError);
    if (read.json === null && held && held.version === read.version) return held.body;
    if (read.json === null) throw new Error("candidate list: no JSON for a version not held"); // the statement's CASE forbids it
    const body = Buffer.from(read.json, "utf8");
    this.#set(key, read.version, body);
    return body;
  }

  /** Keeps the version's count cheap; one fold per position at a time, in the background. */
  #fold(db: Db, key: string, positionId: string, onError: (err: unknown) => void): void {
    if (this.#folding.has(key)) return;
    this.#folding.add(key);
    foldCandidateListChanges(db, positionId)
      .catch(onError)
      .finally(() => this.#folding.delete(key));
  }
}

/**
 * Folds every position's list changes every `everyMs` (positions written but never listed would
 * otherwise keep their rows); answers the stop function. One instance folds at a time.
 */
export function startListChangeFolding(db: Db, everyMs: number, onError: (err: unknown) => void): () => void {
  const timer = setInterval(() => void foldAllCandidateListChanges(db).catch(onError), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** How often every position's list changes are folded. */
export const FOLD_ALL_EVERY_MS = 10 * 60_000;

/** Change rows counted per read before they are folded into the base (each is an index entry to count). */
export const FOLD_AFTER = 32;

/** Default budget of stored list answers: ~80 lists of 1,000 candidates. */
export const CANDIDATE_LIST_CACHE_BYTES = 32 * 1024 * 1024;
