import type { Logger } from "pino";
import type { Db, Queryable } from "../../../shared/db/database.js";
import type { KeysetCursor } from "../../../shared/db/keyset-cursor.js";
import type { IntegrationLookup } from "../../../shared/ports/integrations.js";
import { AppError, notFound } from "../../../shared/errors.js";
import { cacheKeys, integrationKeys } from "../cache/cache.js";
import type { CachedResponse, ResponseCache } from "../cache/response-cache.js";
import type { Log, UpstreamClient } from "../../../shared/upstream/upstream-client.js";
import {
  findIntegration,
  listIntegrations,
  listSyncableIntegrations,
  markIntegrationDeleted,
  recordIntegration,
  renameIntegration,
  setIntegrationState,
  type IntegrationRecordInput,
  type IntegrationStateInput,
} from "./integrations.repository.js";
import type { IntegrationRow } from "./integrations.tables.js";
import { integrationOwnersOf, type IntegrationOwners } from "./integration-owners.js";
import type { IntegrationOwnership } from "../../../shared/ports/integration-ownership.js";

/** The fields of the upstream's integration details the proxy reads (tenancy and state). */
type DetailsPeek = {
  data?: {
    id?: unknown;
    tool?: { id?: unknown };
    category?: unknown;
    status?: unknown;
    setup_status?: unknown;
    end_user?: { origin_id?: unknown; organization_name?: unknown };
  };
};

export type IntegrationDirectoryOptions = {
  db: Db;
  cache: ResponseCache;
  upstream: UpstreamClient;
  /** Lifetime of cached integration details; 0 disables that cache. */
  detailsTtlSeconds: number;
  logger: Logger;
};

/**
 * Which organisation each integration belongs to, and the cached integration details. Every
 * operation that names an integration asks `requireOwned` first; the webhook receivers record,
 * delete and update integrations through the same object so its caches stay true. The ownership
 * decision itself is `owners` (IntegrationOwners, the IntegrationOwnership port's implementation),
 * the same one the recruiting API, the sync engine and the write-back ask.
 */
export class IntegrationDirectory implements IntegrationLookup, IntegrationOwnership {
  readonly owners: IntegrationOwners;

  constructor(private readonly opts: IntegrationDirectoryOptions) {
    this.owners = integrationOwnersOf(opts.db);
  }

  /**
   * Resolves when `integrationId` belongs to `orgId`; otherwise a 404 that does not say whether it
   * exists. An integration unknown here is adopted when the upstream's `end_user.origin_id` (set
   * by create-link) names the caller's org; nothing of the upstream's answer reaches the caller.
   */
  async requireOwned(integrationId: string, orgId: string, requestId: string, log?: Log): Promise<void> {
    if (await this.owners.belongsTo(integrationId, orgId)) return;
    if ((await this.owners.ownerOf(integrationId)) !== null) throw integrationNotFound();
    await this.#adopt(integrationId, orgId, requestId, log);
  }

  belongsTo(integrationId: string, orgId: string): Promise<boolean> {
    return this.owners.belongsTo(integrationId, orgId);
  }

  async #adopt(integrationId: string, orgId: string, requestId: string, log?: Log): Promise<void> {
    const res = await this.details(integrationId, requestId, {}, log);
    if (res.status === 429) {
      const retryAfter = res.headers["retry-after"];
      throw new AppError("RATE_LIMITED", "The upstream is rate limiting; try again later", {
        headers: retryAfter ? { "retry-after": retryAfter } : {},
      });
    }
    const details = res.status === 200 ? peek(res.body) : undefined;
    if (!details || details.end_user?.origin_id !== orgId || typeof details.tool?.id !== "string") throw integrationNotFound();
    const row = await this.record({
      id: integrationId,
      orgId,
      tool: details.tool.id,
      category: str(details.category),
      status: str(details.status),
      setupStatus: str(details.setup_status),
      organizationName: str(details.end_user?.organization_name),
    });
    if (!row || row.orgId !== orgId || row.deletedAt) throw integrationNotFound();
    log?.info({ integration_id: integrationId }, "integration adopted from the upstream's origin id");
  }

  /**
   * The upstream's integration details, cached for `detailsTtlSeconds` (`bypass` loads fresh and
   * refreshes the entry). A fresh answer also refreshes the locally recorded state.
   */
  details(integrationId: string, requestId: string, opts: { bypass?: boolean }, log?: Log): Promise<CachedResponse> {
    return this.opts.cache.fetch(
      cacheKeys.integration(integrationId),
      this.opts.detailsTtlSeconds,
      async () => {
        const res = await this.opts.upstream.sendBuffered(
          { method: "GET", path: `/integrations/${encodeURIComponent(integrationId)}`, requestId, read: true, operation: "getIntegration" },
          log,
        );
        if (res.status === 200) await this.#refreshState(integrationId, res.body, log);
        return res;
      },
      opts,
    );
  }

  async #refreshState(integrationId: string, body: string, log?: Log): Promise<void> {
    const details = peek(body);
    if (!details) return;
    try {
      await setIntegrationState(this.opts.db, integrationId, {
        status: str(details.status) ?? undefined,
        setupStatus: str(details.setup_status) ?? undefined,
        category: str(details.category) ?? undefined,
        organizationName: str(details.end_user?.organization_name),
        at: new Date(),
      });
    } catch (err) {
      // The answer is still right for the caller; the local copy catches up on the next load.
      log?.warn({ err, integration_id: integrationId }, "could not refresh the integration's recorded state");
    }
  }

  /** Records an integration for an org (webhook, activation, adoption); null when another org has it. */
  async record(input: IntegrationRecordInput, q: Queryable = this.opts.db): Promise<IntegrationRow | null> {
    const row = await recordIntegration(q, input);
    if (row) this.owners.remember(row);
    else this.owners.forget(input.id);
    return row;
  }

  /**
   * The organisation an integration is recorded for (deleted or not), from the memo when it has it;
   * null when it is not recorded. What the webhook receivers need for each event.
   */
  ownerOf(integrationId: string): Promise<string | null> {
    return this.owners.ownerOf(integrationId);
  }

  find(integrationId: string, q: Queryable = this.opts.db): Promise<IntegrationRow | null> {
    return findIntegration(q, integrationId);
  }

  /** A live integration of `orgId`; null when it is deleted, another org's, or unknown. */
  async findOwned(integrationId: string, orgId: string): Promise<IntegrationRow | null> {
    const row = await findIntegration(this.opts.db, integrationId);
    return row && row.orgId === orgId && !row.deletedAt ? row : null;
  }

  /** One page of an organisation's live integrations, oldest first. */
  listOwned(orgId: string, page: { limit?: number | undefined; after?: KeysetCursor | undefined }) {
    return listIntegrations(this.opts.db, orgId, page);
  }

  /** Names a live integration of `orgId` (null: the upstream's name again); null when it is not one. */
  rename(integrationId: string, orgId: string, displayName: string | null): Promise<IntegrationRow | null> {
    return renameIntegration(this.opts.db, integrationId, orgId, displayName);
  }

  /** Every ATS integration that is neither deleted nor paused. */
  listSyncable(): Promise<{ id: string; orgId: string }[]> {
    return listSyncableIntegrations(this.opts.db);
  }

  /** After the integration was deleted (here or upstream): refuse it from now on, drop its cache. */
  async markDeleted(integrationId: string, at?: Date, q: Queryable = this.opts.db): Promise<boolean> {
    const known = await markIntegrationDeleted(q, integrationId, at);
    this.owners.forget(integrationId);
    await this.evict(integrationId);
    return known;
  }

  /** A state report (integration-state-changed); applied when newer than the last, and evicts the details. */
  async setState(integrationId: string, state: IntegrationStateInput, q: Queryable = this.opts.db): Promise<boolean> {
    const applied = await setIntegrationState(q, integrationId, state);
    await this.evict(integrationId);
    return applied;
  }

  /** Drops everything cached for the integration (in this process and in the shared store). */
  async evict(integrationId: string): Promise<void> {
    await this.opts.cache.evict(integrationKeys(integrationId));
  }
}

export const integrationNotFound = () => notFound("Integration not found");

function peek(body: string): NonNullable<DetailsPeek["data"]> | undefined {
  try {
    const parsed = JSON.parse(body) as DetailsPeek;
    return parsed && typeof parsed.data === "object" && parsed.data !== null ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
