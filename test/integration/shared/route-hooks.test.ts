import assert from "node:assert/strict";
import { test } from "node:test";
import { createApp } from "../../../src/shared/http/create-app.js";
import { registry } from "../../../src/shared/http/metrics.js";
import { silentLogger } from "../../helpers/config.js";

/** The value of one series of the process's registry, or undefined. */
async function series(name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const hit = (metric?.values ?? []).find((v) => Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l));
  return hit?.value;
}

test("hooks decided per route at registration: metrics by route template (prefixed routes too), 404s as unmatched", async () => {
  const service = `hooks-${process.pid}`;
  const app = createApp({ service, logger: silentLogger() });
  await app.register(async (api) => api.get("/things/:id", async () => ({ ok: true })), { prefix: "/api/v1" });
  await app.ready();
  for (let i = 0; i < 2; i++) assert.equal((await app.inject({ method: "GET", url: `/api/v1/things/${i}` })).statusCode, 200);
  assert.equal((await app.inject({ method: "GET", url: "/api/v1/nothing" })).statusCode, 404);
  await app.close();
  const total = "hirebridge_http_requests_total";
  assert.equal(await series(total, { service, route: "/api/v1/things/:id", status_code: "200" }), 2);
  assert.equal(await series(total, { service, route: "unmatched", status_code: "404" }), 1);
});

test("the storable-input check skips exactly the routes whose config says checksOwnInput", async () => {
  const app = createApp({ service: "hooks-input", logger: silentLogger(), storableInput: true });
  app.post("/checked", async () => ({ ok: true }));
  app.post("/own", { config: { checksOwnInput: true } }, async (request) => ({ own: request.checksOwnInput }));
  await app.ready();
  const nul = { "content-type": "application/json" };
  const payload = JSON.stringify({ name: "a\u0000b" });
  assert.equal((await app.inject({ method: "POST", url: "/checked", headers: nul, payload })).statusCode, 422);
  const own = await app.inject({ method: "POST", url: "/own", headers: nul, payload });
  assert.equal(own.statusCode, 200, own.body);
  assert.deepEqual(own.json(), { own: true });
  // The flag is per request: the next request to a checked route is checked again.
  assert.equal((await app.inject({ method: "POST", url: "/checked", headers: nul, payload })).statusCode, 422);
  await app.close();
});
