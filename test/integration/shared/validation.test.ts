import assert from "node:assert/strict";
import { test } from "node:test";
import { Type } from "@sinclair/typebox";
import { createApp } from "../../../src/shared/http/create-app.js";
import { silentLogger } from "../../helpers/config.js";

function buildApp() {
  const app = createApp({ service: "test", logger: silentLogger() });
  app.post(
    "/items/:id",
    {
      schema: {
        params: Type.Object({ id: Type.String({ format: "uuid" }) }),
        querystring: Type.Object({ integration_id: Type.String(), page_size: Type.Optional(Type.Integer({ maximum: 250 })) }),
        body: Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 5 }), email: Type.Optional(Type.String({ format: "email" })) },
          { additionalProperties: false },
        ),
      },
    },
    async () => ({ ok: true }),
  );
  app.get("/boom", async () => {
    throw new Error("select * from secrets where password = 'hunter2'");
  });
  return app;
}

const ID = "0b6f7a54-3a8f-4a36-9d5e-5d2f7c3f8f11";

test("a missing query parameter is 422 with FastAPI's loc and type", async (t) => {
  const app = buildApp();
  t.after(() => app.close());
  const res = await app.inject({ method: "POST", url: `/items/${ID}`, payload: { name: "a" } });
  assert.equal(res.statusCode, 422);
  assert.deepEqual(res.json(), { detail: [{ loc: ["query", "integration_id"], msg: "Field required", type: "missing" }] });
});

test("body, path and unknown-field failures are all reported with their loc", async (t) => {
  const app = buildApp();
  t.after(() => app.close());
  const res = await app.inject({
    method: "POST",
    url: "/items/not-a-uuid?integration_id=x&page_size=999",
    payload: { name: "toolong", extra: 1, email: "nope" },
  });
  assert.equal(res.statusCode, 422);
  const locs = (res.json().detail as { loc: unknown[] }[]).map((d) => d.loc.join("."));
  assert.ok(locs.includes("path.id"), locs.join());
  // Fastify validates params, then querystring, then body, and stops at the first failing part.
  const res2 = await app.inject({
    method: "POST",
    url: `/items/${ID}?integration_id=x`,
    payload: { name: "toolong", extra: 1, email: "nope" },
  });
  const detail = res2.json().detail as { loc: unknown[]; type: string }[];
  assert.deepEqual(detail.map((d) => [d.loc.join("."), d.type]).sort(), [
    ["body.email", "value_error"],
    ["body.extra", "extra_forbidden"],
    ["body.name", "string_too_long"],
  ]);
  const res3 = await app.inject({ method: "POST", url: `/items/${ID}?integration_id=x&page_size=999`, payload: { name: "a" } });
  assert.deepEqual(res3.json().detail[0].loc, ["query", "page_size"]);
  assert.equal(res3.json().detail[0].type, "less_than_equal");
});

test("malformed JSON is 422 json_invalid, not 400", async (t) => {
  const app = buildApp();
  t.after(() => app.close());
  const res = await app.inject({
    method: "POST",
    url: `/items/${ID}?integration_id=x`,
    headers: { "content-type": "application/json" },
    payload: "{nope",
  });
  assert.equal(res.statusCode, 422);
  assert.equal(res.json().detail[0].type, "json_invalid");
});

test("unknown errors are a bare 500 with no internals, and carry the request id", async (t) => {
  const app = buildApp();
  t.after(() => app.close());
  const res = await app.inject({ method: "GET", url: "/boom", headers: { "x-request-id": "req-123" } });
  assert.equal(res.statusCode, 500);
  assert.deepEqual(res.json(), { detail: "Internal Server Error" });
  assert.equal(res.headers["x-request-id"], "req-123");
  assert.doesNotMatch(res.body, /hunter2|select/);
});

test("/healthz answers 200 when ready", async (t) => {
  const app = buildApp();
  t.after(() => app.close());
  const res = await app.inject({ method: "GET", url: "/healthz" });
  assert.equal(res.statusCode, 200);
  assert.ok(res.headers["x-request-id"]);
});
