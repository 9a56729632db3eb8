import type { FastifyRequest } from "fastify";
import { principalOf } from "../../../shared/auth/bearer.plugin.js";
import type { App } from "../../../shared/http/create-app.js";
import { isUpstreamCallError } from "../../../shared/upstream/upstream-errors.js";
import type { ProxiedCallFailure } from "../proxy-deps.js";

/** The integration a request names: `integration_id` in its query or its path. */
function integrationOf(request: FastifyRequest): string | null {
  const from = (o: unknown) => (o && typeof o === "object" ? (o as Record<string, unknown>)["integration_id"] : undefined);
  const id = from(request.query) ?? from(request.params);
  return typeof id === "string" && id.length > 0 ? id : null;
}

/**
 * Tells `listeners` of every request of this scope that failed because the upstream did (an
 * UpstreamCallError): an `onError` hook, so a request that succeeds does no work here at all.
 */
export function reportUpstreamFailures(api: App, listeners: ((failure: ProxiedCallFailure) => void)[]): void {
  if (listeners.length === 0) return;
  api.addHook("onError", async (request, _reply, error) => {
    if (!isUpstreamCallError(error)) return;
    const integrationId = integrationOf(request);
    const orgId = principalOf(request).orgId?.toLowerCase();
    if (!integrationId || !orgId) return;
    const failure: ProxiedCallFailure = {
      integrationId,
      orgId,
      operation: `${request.method} ${(request.routeOptions.url ?? request.url).replace(/^\/api\/v1/, "")}`,
      status: error.upstreamStatus ?? null,
      error: error.message,
      requestId: request.id,
    };
    for (const listener of listeners) listener(failure);
  });
}
