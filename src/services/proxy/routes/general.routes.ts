import { cacheKeys } from "../cache/cache.js";
import { OPERATIONS } from "../operations/operations.table.js";
import { toUpstreamRequest } from "../operations/upstream-request.js";
import { TOOLS_CACHE_TTL_SECONDS, type ProxyRoutes } from "../proxy-deps.js";
import { forward, route, sendCached } from "./forward.js";

/** General: check-api-key, force-sync, tools (cached for 5 hours per category). */
export const generalRoutes: ProxyRoutes = async (app, { deps }) => {
  const { checkApiKey, forceSync, getTools } = OPERATIONS;

  route(app, checkApiKey, (request, reply) => forward(deps, checkApiKey, request, reply));

  route(app, forceSync, (request, reply) => {
    const { type } = request.query;
    // The upstream takes the sync type in its body; the query's type (default DELTA) wins.
    const body = { ...(request.body ?? {}), type: type ?? "DELTA" };
    return forward(deps, forceSync, request, reply, { body });
  });

  route(app, getTools, async (request, reply) => {
    const { params } = request;
    const res = await deps.cache.fetch(cacheKeys.tools(params.category), TOOLS_CACHE_TTL_SECONDS, () =>
      deps.upstream.sendBuffered(toUpstreamRequest(getTools, { params, requestId: request.id }), request.log),
    );
    return sendCached(request, reply, res);
  });
};
