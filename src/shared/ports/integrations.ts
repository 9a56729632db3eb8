/**
 * The seam between the integration proxy and the modules it hosts (the sync module): which
 * organisation each integration belongs to and its state, as the proxy's IntegrationDirectory
 * keeps them (it `implements IntegrationLookup`; src/runtime/wiring.ts hands it to the sync module).
 * Types only.
 */
import type { KeysetCursor } from "../db/keyset-cursor.js";
import type { IntegrationOwnership } from "./integration-ownership.js";

/** An integration as the sync module reads it (as the proxy records it). */
export type IntegrationView = { id: string; orgId: string; status: string | null; category: string | null; deletedAt: Date | null };

/** An integration as the organisation's list shows it. */
export type OwnedIntegration = {
  id: string;
  tool: string;
  category: string | null;
  status: string | null;
  setupStatus: string | null;
  /** The end user's organisation as the upstream names it, and the name an operator gave it (null: none). */
  organizationName: string | null;
  displayName: string | null;
  createdAt: Date;
};
export type OwnedIntegrationPage = { rows: OwnedIntegration[]; last: KeysetCursor | null; more: boolean };

/** A state report of an integration (integration-state-changed); `at` orders reports. */
export type IntegrationStateReport = {
  status?: string | null | undefined;
  setupStatus?: string | null | undefined;
  qaStatus?: string | null | undefined;
  category?: string | null | undefined;
  organizationName?: string | null | undefined;
  at: Date;
};

/**
 * Which organisation each integration belongs to (the IntegrationOwnership port: `ownerOf`,
 * `belongsTo`, the one decision every path to the upstream asks), and its state: the proxy's
 * IntegrationDirectory.
 */
export interface IntegrationLookup extends IntegrationOwnership {
  find(integrationId: string): Promise<IntegrationView | null>;
  /** Records an integration for an org; null when another org has it. */
  record(input: {
    id: string;
    orgId: string;
    tool: string;
    category?: string | null | undefined;
    organizationName?: string | null | undefined;
  }): Promise<IntegrationView | null>;
  /** Applied when newer than the last report; false when older or the integration is unknown. */
  setState(integrationId: string, state: IntegrationStateReport): Promise<boolean>;
  markDeleted(integrationId: string, at?: Date): Promise<boolean>;
  /** One page of an organisation's live integrations, oldest first (keyset on created_at, id). */
  listOwned(orgId: string, page: { limit?: number | undefined; after?: KeysetCursor | undefined }): Promise<OwnedIntegrationPage>;
  /** A live integration of `orgId`; null when it is deleted, another org's, or unknown. */
  findOwned(integrationId: string, orgId: string): Promise<OwnedIntegration | null>;
  /** Names a live integration of `orgId` (null: the upstream's name again); null when it is not one. */
  rename(integrationId: string, orgId: string, displayName: string | null): Promise<OwnedIntegration | null>;
  /** Every ATS integration that is neither deleted nor paused (the weekly full sync). */
  listSyncable(): Promise<{ id: string; orgId: string }[]>;
  /** Resolves when the integration belongs to `orgId`, else throws the 404 the caller answers. */
  requireOwned(integrationId: string, orgId: string, requestId: string, log?: { info: (...args: never[]) => void }): Promise<void>;
  /** The upstream's integration details (status only is read here). */
  details(integrationId: string, requestId: string, opts: { bypass?: boolean }): Promise<{ status: number }>;
}
