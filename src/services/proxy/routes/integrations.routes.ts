import type { ProxyOperation } from "../operations/operation.js";
import { OPERATIONS } from "../operations/operations.table.js";
import type { ProxyRoutes } from "../proxy-deps.js";
import { forward, route, sendCached } from "./forward.js";

/** Integrations: details (cached), delete, relink, integration fields and custom fields. */
export const integrationsRoutes: ProxyRoutes = async (app, { deps }) => {
  const { getIntegration, deleteIntegration, relinkIntegration } = OPERATIONS;

  route(app, getIntegration, async (request, reply) => {
    const { integration_id } = request.params;
    const { bypass_cache } = request.query;
    const res = await deps.integrations.details(
      integration_id,
      request.id,
      bypass_cache === undefined ? {} : { bypass: bypass_cache },
      request.log,
    );
    return sendCached(request, reply, res);
  });

  route(app, deleteIntegration, (request, reply) => {
    const { integration_id } = request.params;
    return forward(deps, deleteIntegration, request, reply, {
      onSuccess: async () => {
        await deps.integrations.markDeleted(integration_id);
      },
    });
  });

  route(app, relinkIntegration, (request, reply) => {
    const { integration_id } = request.params;
    // Relinking changes the integration's credentials and soon its state: drop the cached details.
    return forward(deps, relinkIntegration, request, reply, { onSuccess: () => deps.integrations.evict(integration_id) });
  });

  const forwarded: ProxyOperation[] = [
    OPERATIONS.listIntegrationFields,
    OPERATIONS.updateIntegrationField,
    OPERATIONS.listCustomFields,
    OPERATIONS.updateCustomFieldMapping,
  ];
  for (const op of forwarded) route(app, op, (request, reply) => forward(deps, op, request, reply));
};
