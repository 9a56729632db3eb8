import type { FastifyInstance, FastifyRequest, RouteOptions } from "fastify";
import { callerOrg } from "../auth/caller-org.js";
import { notFound } from "../errors.js";
import type { IntegrationLookup } from "../ports/integrations.js";
import { appendRouteHook } from "./route-hooks.js";

/** Where a route's integration id is and who decides that it is the caller's organisation's. */
export type OwnedIntegrationRoute = {
  /** `params` (`:integration_id`) or `query` (`?integration_id=`). */
  from: "params" | "query";
  /**
   * `upstream`: an integration unknown here is adopted when the upstream says it was made for the
   * caller's organisation (every proxy operation; IntegrationLookup.requireOwned); `records`:
   * Hirebridge's own records alone decide, the upstream is not asked.
   */
  decide: "upstream" | "records";
  /** The id may be absent (a filter): then nothing is checked and the route sees none. */
  optional?: boolean;
};

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * The route takes an integration id: the owned-integration guard checks it before the handler.
     * `false`: the route's integration id is not the caller's to own (it decides by itself; say why).
     */
    ownedIntegration?: OwnedIntegrationRoute | false;
  }
  interface FastifyRequest {
    /** The integration the route names, once the guard found it the caller's organisation's; else null. */
    ownedIntegrationId: string | null;
  }
}

type Owners = Pick<IntegrationLookup, "requireOwned" | "belongsTo">;

const hasIntegrationId = (schema: unknown) =>
  typeof schema === "object" && schema !== null && "integration_id" in ((schema as { properties?: object }).properties ?? {});

/** Whether a route's path or query schema has an `integration_id`. */
const takesIntegrationId = (schema: RouteOptions["schema"]) => hasIntegrationId(schema?.params) || hasIntegrationId(schema?.querystring);

function checkOwned(route: OwnedIntegrationRoute, owners: Owners) {
  return async (request: FastifyRequest): Promise<void> => {
    const source = (route.from === "query" ? request.query : request.params) as Record<string, unknown> | undefined;
    const given = source?.["integration_id"];
    if (given === undefined && route.optional) return;
    const integrationId = String(given ?? "");
    const orgId = callerOrg(request);
    if (route.decide === "upstream") await owners.requireOwned(integrationId, orgId, request.id, request.log);
    else if (!(await owners.belongsTo(integrationId, orgId))) throw notFound("Integration not found");
    request.ownedIntegrationId = integrationId;
  };
}

/**
 * The one ownership guard of the routes that take an integration id (proxy operations, sync,
 * activity, assessment channel): a route says where its id is in `config.ownedIntegration`, and a
 * preHandler added to that route alone (decided at registration: routes without it pay nothing)
 * checks the id against the caller's organisation before the handler runs, answering the same 404
 * whether the integration is another organisation's or does not exist. Handlers read the checked
 * id with `ownedIntegrationOf`. Call on the scope the routes are registered in, before them.
 */
export function guardOwnedIntegrations(app: FastifyInstance, owners: Owners): void {
  if (!app.hasRequestDecorator("ownedIntegrationId")) app.decorateRequest("ownedIntegrationId", null);
  app.addHook("onRoute", (route) => {
    const owned = route.config?.ownedIntegration;
    if (owned) appendRouteHook(route as RouteOptions, "preHandler", checkOwned(owned, owners));
    // A route of this scope that takes an integration id and says nothing of it is a mistake: refused at start.
    else if (owned === undefined && takesIntegrationId(route.schema))
      throw new Error(`${route.method} ${route.url} takes integration_id but declares no config.ownedIntegration`);
  });
}

/** The integration id the guard checked for this request (a route without `config.ownedIntegration` has none). */
export function ownedIntegrationOf(request: FastifyRequest): string {
  const id = request.ownedIntegrationId;
  if (id === null) throw new Error(`${request.routeOptions.url}: the route does not declare config.ownedIntegration`);
  return id;
}
