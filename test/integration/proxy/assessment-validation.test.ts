/**
 * The four assessment operations (issue 40) before anything goes upstream: the integration from the
 * query or from X-Integration-Id (as the official SDK sends it), bodies checked against the
 * contracts with the 422 HTTPValidationError shape, another organisation's integration refused,
 * and the operations listed in the OpenAPI document under "Assessment".
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { startProxyHarness, upstreamCalls, type ProxyHarness } from "./proxy-harness.js";

const PACKAGE = { id: "pkg-1", type: "VIDEO_INTERVIEW", name: "AI interview", description: "Twenty minutes" };
const RESULT = { status: "COMPLETED", result_url: "https://hirebridge.example/r/1", completed_at: "2026-01-02T03:04:05.000Z" };

describeEachDatabase("proxy: assessment operations, validation and tenancy", (getDb) => {
  let h: ProxyHarness;
  let q: string;
  before(async () => {
    h = await startProxyHarness(getDb());
    q = `integration_id=${h.integration}`;
  });
  after(() => h?.close());

  type Detail = { loc: (string | number)[]; msg: string; type: string };
  async function expect422(method: "GET" | "PUT", url: string, payload: unknown, headers: Record<string, string> = {}): Promise<Detail[]> {
    h.seen.length = 0;
    const res = await h.call(method, url, { payload, headers });
    assert.equal(res.statusCode, 422, `${method} ${url}: ${res.body}`);
    const body = res.json() as { detail: Detail[] };
    assert.ok(Array.isArray(body.detail) && body.detail.length > 0, res.body);
    for (const d of body.detail) {
      assert.ok(Array.isArray(d.loc) && typeof d.msg === "string" && typeof d.type === "string", res.body);
    }
    assert.deepEqual(upstreamCalls(h.seen), [], "nothing reaches the upstream");
    return body.detail;
  }
  const locs = (detail: Detail[]) => detail.map((d) => d.loc.join("."));

  test("package bodies: an unknown type, a missing name, no body at all are 422", async () => {
    const url = `/api/v1/assessment/packages?${q}`;
    assert.deepEqual(locs(await expect422("PUT", url, { packages: [{ ...PACKAGE, type: "QUIZ" }] })), ["body.packages.0.type"]);
    const { name: _, ...nameless } = PACKAGE;
    assert.deepEqual(locs(await expect422("PUT", url, { packages: [PACKAGE, nameless] })), ["body.packages.1.name"]);
    assert.deepEqual(await expect422("PUT", url, undefined), [{ loc: ["body"], msg: "Field required", type: "missing" }]);
    // The apps' Ajv coerces a scalar into a one-item array, so the item is what is refused.
    assert.deepEqual(locs(await expect422("PUT", url, { packages: "all" })), ["body.packages.0"]);
  });

  test("result bodies: status, result_url, attributes and attachments are checked", async () => {
    const url = `/api/v1/assessment/orders/order-1/result?${q}`;
    assert.deepEqual(locs(await expect422("PUT", url, { ...RESULT, status: "REJECTED" })), ["body.status"]);
    assert.deepEqual(locs(await expect422("PUT", url, { ...RESULT, result_url: "javascript:alert(1)" })), ["body.result_url"]);
    assert.deepEqual(locs(await expect422("PUT", url, { ...RESULT, completed_at: "yesterday" })), ["body.completed_at"]);
    assert.deepEqual(locs(await expect422("PUT", url, { ...RESULT, score: "high" })), ["body.score"]);
    const subResult = { type: "SUB_RESULT", id: "s1", label: "Depth", score: { value: 3 }, status: "COMPLETED" };
    assert.ok(locs(await expect422("PUT", url, { ...RESULT, attributes: [subResult] })).every((l) => l.startsWith("body.attributes.0")));
    const both = { name: "r.pdf", content_type: "application/pdf", data: "JVBERi0=", data_url: "https://files.example/r.pdf" };
    assert.deepEqual(await expect422("PUT", url, { ...RESULT, attachments: [both] }), [
      { loc: ["body", "attachments", 0], msg: "Give exactly one of data (base64) or data_url", type: "value_error" },
    ]);
    assert.deepEqual(await expect422("PUT", url, { ...RESULT, attachments: [{ name: "r.pdf" }] }), [
      { loc: ["body", "attachments", 0], msg: "Give exactly one of data (base64) or data_url", type: "value_error" },
    ]);
    assert.deepEqual(await expect422("PUT", url, { ...RESULT, attachments: [{ name: "r.pdf", data: "JVBERi0=" }] }), [
      { loc: ["body", "attachments", 0, "content_type"], msg: "Field required with data", type: "missing" },
    ]);
    const notBase64 = { name: "r.pdf", content_type: "application/pdf", data: "%PDF-1.7 raw bytes" };
    assert.deepEqual(locs(await expect422("PUT", url, { ...RESULT, attachments: [notBase64] })), ["body.attachments.0.data"]);
  });

  test("orders query: statuses from the closed set, created_after an instant, page_size 1..250", async () => {
    const base = `/api/v1/assessment/orders?${q}`;
    assert.deepEqual(locs(await expect422("GET", `${base}&statuses=OPEN,DONE`, undefined)), ["query.statuses"]);
    assert.deepEqual(locs(await expect422("GET", `${base}&created_after=last-week`, undefined)), ["query.created_after"]);
    assert.deepEqual(locs(await expect422("GET", `${base}&page_size=251`, undefined)), ["query.page_size"]);
    assert.deepEqual(locs(await expect422("GET", `${base}&page_size=0`, undefined)), ["query.page_size"]);
  });

  test("the integration: required in the query or the header; both given must agree", async () => {
    assert.deepEqual(locs(await expect422("GET", "/api/v1/assessment/packages", undefined)), ["query.integration_id"]);
    const mismatch = await expect422("GET", `/api/v1/assessment/packages?${q}`, undefined, { "x-integration-id": "greenhouse:another" });
    assert.deepEqual(mismatch, [
      {
        loc: ["header", "x-integration-id"],
        msg: "X-Integration-Id names another integration than the query's integration_id",
        type: "value_error",
      },
    ]);
  });

  test("another organisation's integration is 404 by query and by header, and nothing goes upstream", async () => {
    // The owner uses it first, so it is recorded for the owner's organisation.
    const own = await h.call("GET", `/api/v1/ats/jobs?${q}&page_size=1`);
    assert.equal(own.statusCode, 200, own.body);
    h.seen.length = 0;
    const header = { "x-integration-id": h.sandbox.demoIntegrationId };
    const calls: [string, string, unknown, Record<string, string>][] = [
      ["GET", `/api/v1/assessment/packages?${q}`, undefined, {}],
      ["GET", "/api/v1/assessment/packages", undefined, header],
      ["PUT", "/api/v1/assessment/packages", { packages: [PACKAGE] }, header],
      ["GET", "/api/v1/assessment/orders?page_size=5", undefined, header],
      ["PUT", "/api/v1/assessment/orders/order-1/result", RESULT, header],
      ["PUT", `/api/v1/assessment/orders/order-1/result?${q}`, RESULT, header],
    ];
    for (const [method, url, payload, headers] of calls) {
      const res = await h.call(method as "GET" | "PUT", url, { token: h.other.accessToken, payload, headers });
      assert.equal(res.statusCode, 404, `${method} ${url}`);
      assert.deepEqual(res.json(), { detail: "Integration not found" });
    }
    assert.deepEqual(upstreamCalls(h.seen), []);
  });

  test("OpenAPI: the four operations under the tag Assessment, with the integration header documented", async () => {
    const res = await h.app.inject({ url: "/api/v1/openapi.json" });
    type Op = { tags: string[]; description: string; parameters?: { name: string; in: string; required?: boolean }[] };
    const doc = res.json() as { paths: Record<string, Record<string, Op>>; tags?: { name: string }[] };
    const ops = [
      ["get", "/api/v1/assessment/packages"],
      ["put", "/api/v1/assessment/packages"],
      ["get", "/api/v1/assessment/orders"],
      ["put", "/api/v1/assessment/orders/{assessment_order_id}/result"],
    ] as const;
    for (const [method, path] of ops) {
      const op = doc.paths[path]?.[method];
      assert.ok(op, `${method} ${path} is documented`);
      assert.deepEqual(op.tags, ["Assessment"]);
      assert.match(op.description, /X-Integration-Id/);
      const params = op.parameters ?? [];
      assert.ok(params.some((p) => p.in === "header" && p.name === "x-integration-id" && p.required !== true));
      assert.ok(params.some((p) => p.in === "query" && p.name === "integration_id"));
    }
    const orders = doc.paths["/api/v1/assessment/orders"]!["get"]!.parameters!.filter((p) => p.in === "query").map((p) => p.name);
    assert.deepEqual(orders.sort(), ["created_after", "cursor", "ids", "integration_id", "page_size", "statuses"]);
  });
});
