import { proxyErrorResponses, UpstreamBodySchema } from "../../../contracts/proxy/index.js";
import type { ProxyOperation } from "./operation.js";

/** The OpenAPI description of an operation, generated from its row of the mapping table. */
export function describeOperation(op: ProxyOperation): string {
  const up = op.upstream;
  const parts: string[] = [];
  if (op.notes) parts.push(op.notes);
  let forward = `**Upstream:** \`${up.method} ${up.path}\``;
  if (up.integrationHeader) forward += " with `X-Integration-Id: <integration_id>`";
  if (up.body === "empty-object") forward += " and the body `{}`";
  parts.push(`${forward}.`);
  const renames = Object.entries(up.rename ?? {});
  if (renames.length > 0) {
    parts.push(`**Query names upstream:** ${renames.map(([ours, theirs]) => `\`${ours}\` → \`${theirs}\``).join(", ")}.`);
  }
  if (op.tenancy !== "none") {
    const where = op.integrationFromHeader
      ? "`integration_id` in the query, or the `X-Integration-Id` header as the upstream's SDK sends it; both given must agree, else 422"
      : `\`integration_id\` in the ${op.tenancy}`;
    parts.push(
      `**Tenancy:** the integration (${where}) must belong to the caller's organisation; otherwise 404, and nothing is sent upstream.`,
    );
  }
  parts.push(
    op.kind === "read"
      ? "**Retries:** on 429, 5xx and connection failures, with jittered exponential backoff that honours `Retry-After`, within UPSTREAM_TIMEOUT_MS."
      : "**Retries:** none once the request may have reached the upstream.",
  );
  if (op.cache) parts.push(`**Cache:** ${op.cache}`);
  return parts.join("\n\n");
}

/** The Fastify route schema of an operation: validation, and its entry in the OpenAPI document. */
export function routeSchema(op: ProxyOperation) {
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: describeOperation(op),
    security: [{ bearer: [] }],
    ...op.schema,
    response: { 200: UpstreamBodySchema, ...proxyErrorResponses },
  };
}
