import type { Db } from "../../../shared/db/database.js";
import { validationError } from "../../../shared/errors.js";
import type { IntegrationOwnership } from "../../../shared/ports/integration-ownership.js";
import { findPosition } from "../positions/positions.repository.js";

/**
 * The tenant rule on upstream links, where they enter the recruiting API: a link names an
 * integration of the caller's own organisation, or it is refused (422 with the field's `loc`). The
 * upstream scopes job and application ids to their integration, so the integration decides whose
 * ATS any linked id can reach: a position's `upstream_integration_id` must be the organisation's,
 * and a candidate's `upstream_application_id` is accepted only while its position is linked to
 * none or to one of the organisation's. The write-back checks the owner again when it sends.
 */

const NOT_OWNED = "Integration not found in this organization: an upstream link must name one of the organization's own integrations";
const POSITION_NOT_OWNED =
  "The position is linked to an integration that is not this organization's: link the position to one of its own integrations first";

/** A position's create or update: `upstream_integration_id`, when it names one, must be the org's. */
export async function checkPositionLink(
  ownership: IntegrationOwnership,
  orgId: string,
  body: { upstream_integration_id?: string | null | undefined },
): Promise<void> {
  const integrationId = body.upstream_integration_id;
  if (integrationId === undefined || integrationId === null) return;
  if (await ownership.belongsTo(integrationId, orgId)) return;
  throw validationError([{ loc: ["body", "upstream_integration_id"], msg: NOT_OWNED, type: "value_error" }]);
}

/**
 * Candidates of a position getting an `upstream_application_id` (each entry's `loc`): the position's
 * integration must be the organisation's. A position that is not the org's is left to the route (404).
 */
export async function checkApplicationLinks(
  ownership: IntegrationOwnership,
  db: Db,
  orgId: string,
  positionId: string,
  locs: (string | number)[][],
): Promise<void> {
  if (locs.length === 0) return;
  const integrationId = (await findPosition(db, orgId, positionId))?.upstreamIntegrationId;
  if (!integrationId || (await ownership.belongsTo(integrationId, orgId))) return;
  throw validationError(locs.map((loc) => ({ loc, msg: POSITION_NOT_OWNED, type: "value_error" })));
}

/** The `loc` of every entry that sets a (non-null) upstream_application_id; `at` is the entry's path in the body. */
export function applicationLinkLocs(
  entries: { upstream_application_id?: string | null | undefined }[],
  at: (i: number) => (string | number)[],
) {
  return entries.flatMap((e, i) => (typeof e.upstream_application_id === "string" ? [[...at(i), "upstream_application_id"]] : []));
}
