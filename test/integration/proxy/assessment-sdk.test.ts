/**
 * The official `@kombo-api/sdk`, pointed at the proxy with the caller's JWT as its API key, runs
 * the upstream's four assessment operations against the sandbox over real HTTP: the proxy reads the
 * integration from the X-Integration-Id header the SDK sends, passes the answers through for the
 * SDK's models to parse, and refuses another organisation's JWT with nothing changed upstream.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { Kombo } from "@kombo-api/sdk";
import { KomboAtsError } from "@kombo-api/sdk/models/errors";
import { describeEachDatabase } from "../../helpers/db.js";
import { sandboxGet, startProxyHarness, upstreamCalls, type ProxyHarness } from "./proxy-harness.js";

type OrderView = {
  id: string;
  status: string;
  package_id: string;
  result: {
    status: string;
    score: number | null;
    max_score: number | null;
    result_url: string;
    completed_at: string | null;
    attributes: Record<string, unknown>[];
  } | null;
  attachments: { name: string; content_type: string | null; size: number | null; download_url: string | null }[];
};

const PACKAGES = [
  { id: "backend-screen", type: "VIDEO_INTERVIEW" as const, name: "Backend screen", description: "Twenty minutes with the AI interviewer" },
  { id: "culture", type: "BEHAVIORAL" as const, name: "Culture fit", description: "Values and teamwork" },
];

/** A PDF of about 300 KB: a real header and trailer around padding, as base64 (~400 KB in the body). */
function pdfBytes(): Buffer {
  return Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(300 * 1024, "0"), Buffer.from("\n%%EOF\n")]);
}

describeEachDatabase("proxy: the official SDK's assessment calls through the proxy", (getDb) => {
  let h: ProxyHarness;
  let integrationId: string;
  let applicationId: string;
  let proxyBase: string;
  const sdk = (token: string) => new Kombo({ api_key: token, integration_id: integrationId, server_url: proxyBase });

  const admin = (path: string) => `/sandbox/integrations/${encodeURIComponent(integrationId)}${path}`;
  /** A sandbox admin action that creates something (201). */
  async function post<T>(path: string, body: unknown): Promise<T> {
    const res = await fetch(`${h.sandbox.origin}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    assert.equal(res.status, 201, `${path}: ${text}`);
    return JSON.parse(text) as T;
  }

  before(async () => {
    h = await startProxyHarness(getDb());
    await h.app.listen({ host: "127.0.0.1", port: 0 });
    proxyBase = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}/api/v1`;
    // An ASSESSMENT integration of the demo organisation, with applications to place orders for.
    const created = await fetch(`${h.sandbox.origin}/sandbox/integrations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ org_id: h.demo.orgId, category: "ASSESSMENT", applications: 3 }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    integrationId = ((await created.json()) as { id: string }).id;
    // Its ATS models are not on the unified API (403 there), so the job and application come from the admin surface.
    const job = await post<{ id: string }>(admin("/jobs"), { name: "Backend Engineer" });
    const application = await post<{ id: string }>(admin("/applications"), {
      job_id: job.id,
      candidate: { first_name: "Ada", last_name: "Lovelace", email_address: "ada@example.com" },
    });
    applicationId = application.id;
  });
  after(() => h?.close());

  const placeOrder = (packageId: string) =>
    post<OrderView>(admin("/assessment-orders"), { application_id: applicationId, package_id: packageId });

  test("setPackages and getPackages: the list is replaced upstream and parsed by the SDK's models", async () => {
    h.seen.length = 0;
    const set = await sdk(h.demo.accessToken).assessment.setPackages({ packages: PACKAGES });
    assert.equal(set.status, "success");
    const calls = upstreamCalls(h.seen);
    // The integration is new here: its owner is looked up once (adoption by end_user.origin_id), then the write.
    assert.deepEqual(
      calls.map((c) => `${c.method} ${c.url}`),
      [`GET /v1/integrations/${encodeURIComponent(integrationId)}`, "PUT /v1/assessment/packages"],
    );
    const put = calls[1]!;
    assert.equal(put.headers["x-integration-id"], integrationId);
    assert.notEqual(put.headers["authorization"], `Bearer ${h.demo.accessToken}`, "the caller's JWT never goes upstream");

    const got = await sdk(h.demo.accessToken).assessment.getPackages();
    assert.equal(got.status, "success");
    const packages = got.data.packages;
    assert.deepEqual(
      packages.map((p) => ({ id: p.id, type: p.type, name: p.name, description: p.description })),
      PACKAGES,
    );
    for (const p of packages) assert.ok(p.updated_at instanceof Date, "updated_at parsed as a date");
    const upstream = await sandboxGet<{ packages: { id: string }[] }>(h.sandbox, admin("/assessment-packages"));
    assert.deepEqual(
      upstream.packages.map((p) => p.id),
      PACKAGES.map((p) => p.id),
    );
  });

  test("getAssessmentOrders lists an order placed in the ATS, with the statuses filter passed on", async () => {
    const order = await placeOrder("backend-screen");
    const kombo = sdk(h.demo.accessToken);
    const page = await kombo.assessment.getAssessmentOrders({ statuses: ["OPEN"], page_size: 50 });
    const found = page.result.data.results.find((o) => o.id === order.id);
    assert.ok(found, "the new order is listed");
    assert.equal(found.status, "OPEN");
    assert.equal(found.package_id, "backend-screen");
    assert.equal(typeof found.candidate.email, "string");
    const completed = await kombo.assessment.getAssessmentOrders({ statuses: ["COMPLETED"] });
    assert.equal(
      completed.result.data.results.some((o) => o.id === order.id),
      false,
      "an OPEN order is not among COMPLETED",
    );
  });

  test("updateOrderResult writes status, score, both attribute kinds and a ~300 KB PDF on the order", async () => {
    const order = await placeOrder("backend-screen");
    const pdf = pdfBytes();
    const completedAt = new Date("2026-03-04T05:06:07.000Z");
    const res = await sdk(h.demo.accessToken).assessment.updateOrderResult({
      assessment_order_id: order.id,
      body: {
        status: "COMPLETED",
        result_url: "https://hirebridge.example/results/abc",
        completed_at: completedAt,
        score: 82,
        max_score: 100,
        attributes: [
          { type: "TEXT", label: "Feedback", value: "Clear and structured answers." },
          { type: "SUB_RESULT", id: "depth", label: "Technical depth", score: { value: 4, max: 5 }, status: "COMPLETED" },
        ],
        attachments: [{ name: "Report.pdf", content_type: "application/pdf", data: pdf.toString("base64") }],
      },
    });
    assert.equal(res.status, "success");
    const view = await sandboxGet<OrderView>(h.sandbox, admin(`/assessment-orders/${order.id}`));
    assert.equal(view.status, "COMPLETED");
    const { status, score, max_score, result_url, completed_at, attributes } = view.result ?? ({} as NonNullable<OrderView["result"]>);
    assert.deepEqual(
      { status, score, max_score, result_url, completed_at, attributes },
      {
        status: "COMPLETED",
        score: 82,
        max_score: 100,
        result_url: "https://hirebridge.example/results/abc",
        completed_at: completedAt.toISOString(),
        // The SUB_RESULT keeps its id, score and status on the way through (each union member its own fields).
        attributes: [
          { type: "TEXT", label: "Feedback", value: "Clear and structured answers." },
          { type: "SUB_RESULT", id: "depth", label: "Technical depth", score: { value: 4, max: 5 }, status: "COMPLETED" },
        ],
      },
    );
    assert.equal(view.attachments.length, 1);
    assert.equal(view.attachments[0]!.name, "Report.pdf");
    assert.equal(view.attachments[0]!.content_type, "application/pdf");
    assert.equal(view.attachments[0]!.size, pdf.length);
    const file = await fetch(view.attachments[0]!.download_url!);
    assert.ok(Buffer.from(await file.arrayBuffer()).equals(pdf), "the bytes arrived whole");
  });

  test("the upstream's own refusals pass through in its envelope, as the SDK's typed error", async () => {
    const kombo = sdk(h.demo.accessToken);
    await assert.rejects(
      kombo.assessment.updateOrderResult({
        assessment_order_id: "no-such-order",
        body: { status: "COMPLETED", result_url: "https://hirebridge.example/r", completed_at: new Date() },
      }),
      (err: unknown) => {
        assert.ok(err instanceof KomboAtsError, String(err));
        assert.equal(err.statusCode, 404);
        return true;
      },
    );
    // A result can change the status only while the order is OPEN: the upstream refuses, the proxy passes it on.
    const order = await placeOrder("culture");
    const cancel = { status: "CANCELLED" as const, result_url: "https://hirebridge.example/r", completed_at: new Date() };
    await kombo.assessment.updateOrderResult({ assessment_order_id: order.id, body: cancel });
    await assert.rejects(
      kombo.assessment.updateOrderResult({ assessment_order_id: order.id, body: { ...cancel, status: "COMPLETED" } }),
      (err: unknown) => {
        assert.ok(err instanceof KomboAtsError, String(err));
        assert.ok(err.statusCode >= 400 && err.statusCode < 500, String(err.statusCode));
        return true;
      },
    );
    assert.equal((await sandboxGet<OrderView>(h.sandbox, admin(`/assessment-orders/${order.id}`))).status, "CANCELLED");
  });

  test("another organisation's JWT: 404 from the proxy for all four, and nothing changes upstream", async () => {
    const order = await placeOrder("culture");
    const before = await sandboxGet<OrderView>(h.sandbox, admin(`/assessment-orders/${order.id}`));
    h.seen.length = 0;
    const foreign = sdk(h.other.accessToken);
    const refused = async (call: () => Promise<unknown>, what: string) => {
      await assert.rejects(call, (err: unknown) => {
        const e = err as { statusCode?: number; body?: string; rawResponse?: Response };
        assert.equal(e.statusCode ?? e.rawResponse?.status, 404, `${what}: ${String(err)}`);
        return true;
      });
    };
    await refused(() => foreign.assessment.getPackages(), "getPackages");
    await refused(() => foreign.assessment.setPackages({ packages: [] }), "setPackages");
    await refused(() => foreign.assessment.getAssessmentOrders(), "getAssessmentOrders");
    await refused(
      () =>
        foreign.assessment.updateOrderResult({
          assessment_order_id: order.id,
          body: { status: "CANCELLED", result_url: "https://evil.example/r", completed_at: new Date() },
        }),
      "updateOrderResult",
    );
    assert.deepEqual(upstreamCalls(h.seen), [], "nothing reached the upstream");
    const packages = await sandboxGet<{ packages: { id: string }[] }>(h.sandbox, admin("/assessment-packages"));
    assert.deepEqual(
      packages.packages.map((p) => p.id),
      PACKAGES.map((p) => p.id),
    );
    assert.deepEqual(await sandboxGet<OrderView>(h.sandbox, admin(`/assessment-orders/${order.id}`)), before);
  });

  test("a body the SDK would not send is refused by the proxy with 422 and never reaches the upstream", async () => {
    h.seen.length = 0;
    const res = await fetch(`${proxyBase}/assessment/packages`, {
      method: "PUT",
      headers: {
        authorization: `Bearer ${h.demo.accessToken}`,
        "x-integration-id": integrationId,
        "content-type": "application/json",
      },
      body: JSON.stringify({ packages: [{ ...PACKAGES[0], type: "QUIZ" }] }),
    });
    assert.equal(res.status, 422);
    const body = (await res.json()) as { detail: { loc: unknown[] }[] };
    assert.deepEqual(
      body.detail.map((d) => d.loc),
      [["body", "packages", 0, "type"]],
    );
    assert.deepEqual(upstreamCalls(h.seen), []);
  });
});
