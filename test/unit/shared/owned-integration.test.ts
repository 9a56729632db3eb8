import assert from "node:assert/strict";
import { test } from "node:test";
import Fastify, { type FastifyInstance } from "fastify";
import { guardOwnedIntegrations, ownedIntegrationOf } from "../../../src/shared/http/owned-integration.js";
import { notFound } from "../../../src/shared/errors.js";

const ORG_A = "0b3f6c1e-1d1a-4c3e-9d7e-0a0000000001";
const ORG_B = "0b3f6c1e-1d1a-4c3e-9d7e-0a0000000002";

/**
 * An app with the guard over two routes, the caller's organisation from a header (the bearer check
 * stands in), and ownership from a table: `greenhouse:a` is organisation A's by Hirebridge's
 * records; `greenhouse:adoptable` is A's only when the upstream is asked (requireOwned adopts).
 */
async function appWithGuard(): Promise<{ app: FastifyInstance; asked: string[] }> {
  const asked: string[] = [];
  const app = Fastify();
  app.decorateRequest("principal", undefined);
  app.addHook("onRequest", async (request) => {
    const orgId = request.headers["x-org"] as string;
    request.principal = { sub: "u", orgId, username: null, email: null, scope: "", claims: {} };
  });
  guardOwnedIntegrations(app, {
    belongsTo: async (id, org) => id === "greenhouse:a" && org === ORG_A,
    requireOwned: async (id, org) => {
      asked.push(id);
      if (!((id === "greenhouse:a" || id === "greenhouse:adoptable") && org === ORG_A)) throw notFound("Integration not found");
    },
  });
  const params = { type: "object", properties: { integration_id: { type: "string" } }, required: ["integration_id"] };
  app.get(
    "/records/:integration_id",
    { schema: { params }, config: { ownedIntegration: { from: "params", decide: "records" } } },
    async (request) => ({ id: ownedIntegrationOf(request) }),
  );
  app.get(
    "/upstream",
    {
      schema: { querystring: { type: "object", properties: { integration_id: { type: "string" } } } },
      config: { ownedIntegration: { from: "query", decide: "upstream", optional: true } },
    },
    async (request) => ({ id: request.ownedIntegrationId }),
  );
  await app.ready();
  return { app, asked };
}

test("the guard answers 404 for another organisation's integration and hands the handler the checked id", async () => {
  const { app, asked } = await appWithGuard();
  const get = (url: string, org: string) => app.inject({ method: "GET", url, headers: { "x-org": org } });
  assert.deepEqual((await get("/records/greenhouse:a", ORG_A)).json(), { id: "greenhouse:a" });
  assert.equal((await get("/records/greenhouse:a", ORG_B)).statusCode, 404);
  // Records decide: an integration only the upstream could vouch for is not adopted here.
  assert.equal((await get("/records/greenhouse:adoptable", ORG_A)).statusCode, 404);
  assert.deepEqual(asked, []);
  assert.deepEqual((await get("/upstream?integration_id=greenhouse:adoptable", ORG_A)).json(), { id: "greenhouse:adoptable" });
  assert.equal((await get("/upstream?integration_id=greenhouse:a", ORG_B)).statusCode, 404);
  // Optional and absent: nothing to check, no id for the handler.
  assert.deepEqual((await get("/upstream", ORG_B)).json(), { id: null });
  assert.deepEqual(asked, ["greenhouse:adoptable", "greenhouse:a"]);
  await app.close();
});

test("a route that takes integration_id without declaring its ownership is refused when it is registered", async () => {
  const app = Fastify();
  guardOwnedIntegrations(app, { belongsTo: async () => true, requireOwned: async () => {} });
  const schema = { querystring: { type: "object", properties: { integration_id: { type: "string" } } } };
  assert.throws(
    () => app.get("/naked", { schema }, async () => ({})),
    /GET \/naked takes integration_id but declares no config\.ownedIntegration/,
  );
  // Saying it is not the caller's to own is allowed.
  app.get("/declared", { schema, config: { ownedIntegration: false } }, async () => ({}));
  await app.close();
});

test("a handler that reads the checked id on a route the guard does not cover fails loudly, never unchecked", async () => {
  const app = Fastify();
  app.decorateRequest("ownedIntegrationId", null);
  app.get("/unguarded/:integration_id", async (request) => ({ id: ownedIntegrationOf(request) }));
  assert.equal((await app.inject({ method: "GET", url: "/unguarded/greenhouse:a" })).statusCode, 500);
  await app.close();
});
