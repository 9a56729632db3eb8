import type { Queryable } from "../../../shared/db/database.js";
import type { IntegrationOwnership } from "../../../shared/ports/integration-ownership.js";
import { findIntegration } from "./integrations.repository.js";
import type { IntegrationRow } from "./integrations.tables.js";

type Owner = { orgId: string; deleted: boolean; expiresAt: number };

const OWNER_MEMO_TTL_MS = 5 * 60_000;
const OWNER_MEMO_MAX = 50_000;

/**
 * Which organisation each integration belongs to, from the `integrations` table: the one
 * implementation of the IntegrationOwnership port (the proxy's directory holds one; the recruiting
 * API, the sync engine and the write-back reach the same decision through the port, wired in
 * src/runtime/wiring.ts, whether or not the proxy runs in the process).
 *
 * Owners are memoised in-process: an integration never changes organisation, so a memo can only be
 * stale about deletion (for OWNER_MEMO_TTL_MS, in a process that did not delete it), and a deleted
 * integration is refused by the upstream anyway. An integration that is not recorded is not memoised.
 */
export class IntegrationOwners implements IntegrationOwnership {
  readonly #owners = new Map<string, Owner>();

  constructor(private readonly db: Queryable) {}

  async ownerOf(integrationId: string): Promise<string | null> {
    return (await this.#lookup(integrationId))?.orgId ?? null;
  }

  async belongsTo(integrationId: string, orgId: string): Promise<boolean> {
    const owner = await this.#lookup(integrationId);
    return owner !== null && !owner.deleted && owner.orgId === orgId.toLowerCase();
  }

  /** What the memo or the table says of the integration; null when it is not recorded. */
  async #lookup(integrationId: string): Promise<Owner | null> {
    const memo = this.#owners.get(integrationId);
    if (memo && memo.expiresAt > Date.now()) return memo;
    const row = await findIntegration(this.db, integrationId);
    return row ? this.remember(row) : null;
  }

  /** Keeps what a fresh row says (after a read, a record, an adoption). */
  remember(row: Pick<IntegrationRow, "id" | "orgId" | "deletedAt">): Owner {
    const owner = { orgId: row.orgId, deleted: row.deletedAt !== null, expiresAt: Date.now() + OWNER_MEMO_TTL_MS };
    this.#owners.delete(row.id);
    this.#owners.set(row.id, owner);
    if (this.#owners.size > OWNER_MEMO_MAX) {
      const oldest = this.#owners.keys().next().value;
      if (oldest !== undefined) this.#owners.delete(oldest);
    }
    return owner;
  }

  /** Forgets the integration (deleted here, or recorded for another org): the next question reads the table. */
  forget(integrationId: string): void {
    this.#owners.delete(integrationId);
  }
}

const perDatabase = new WeakMap<Queryable, IntegrationOwners>();

/**
 * The process's one IntegrationOwners over `db`: the proxy's directory and the recruiting API share
 * it when they run together, so a deletion the proxy records is seen by both at once.
 */
export function integrationOwnersOf(db: Queryable): IntegrationOwners {
  let owners = perDatabase.get(db);
  if (!owners) {
    owners = new IntegrationOwners(db);
    perDatabase.set(db, owners);
  }
  return owners;
}
