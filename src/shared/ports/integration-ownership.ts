/**
 * "This upstream integration belongs to this organisation": the one decision behind every path
 * that reaches a customer's ATS. The proxy asks it before forwarding, the recruiting API before it
 * stores an upstream link (a position's `upstream_integration_id`, a candidate's
 * `upstream_application_id`), the sync engine before it links records, and the write-back again
 * when it sends. Implemented once, over the proxy's `integrations` table
 * (services/proxy/integrations/integration-owners.ts), and handed to each in src/runtime/wiring.ts.
 *
 * An integration never changes organisation; it can only be deleted, after which it belongs to no
 * one for these purposes.
 */
export interface IntegrationOwnership {
  /** The organisation the integration is recorded for (deleted or not); null when it is not recorded. */
  ownerOf(integrationId: string): Promise<string | null>;
  /** Whether the integration is recorded for `orgId` and not deleted. */
  belongsTo(integrationId: string, orgId: string): Promise<boolean>;
}
