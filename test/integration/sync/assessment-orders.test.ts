/**
 * The assessment channel end to end over real HTTP (docs/assessments.md): templates published as
 * packages (seen through the official SDK), orders placed through the sandbox's admin action (the
 * recruiter's click in the ATS) becoming candidates with interview links, results written on the
 * order (COMPLETED with score, feedback, report PDF and a results page; CANCELLED), rejections with
 * a message, inline orders, repeated deliveries and another organisation's integration.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Kombo } from "@kombo-api/sdk";
import type { AssessmentOrderPage } from "../../../src/contracts/proxy/assessment-orders.js";
import { signWebhookBody } from "../../../src/shared/upstream/webhook-signature.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call, eventually, startTestStack, type TestStack } from "../../helpers/stack.js";

type Position = { id: string; name: string; state: string; upstream_job_id_id?: string | null };
type Candidate = { id: string; name: string; email: string; upstream_assessment_order_id?: string; upstream_application_id?: string };
type Interview = { status: string; interview_link: string | null };
type OrderView = {
  id: string;
  status: string;
  receiver: { state: string; last_status: number | null };
  rejection_message: string | null;
  assessment_url: string | null;
  candidate: { email: string };
  job: { remote_id: string };
  result: null | {
    status: string;
    score: number | null;
    max_score: number | null;
    result_url: string;
    attributes: { type: string; label: string; value?: string }[];
  };
  attachments: { name: string; content_type: string; download_url: string | null }[];
};

describeEachDatabase("assessment orders", (getDb) => {
  let stack: TestStack;
  let token: string;
  let orgId: string;
  let integrationId: string;
  let template: Position;
  let kombo: Kombo;

  const sandboxCall = <T>(method: string, path: string, body?: unknown) =>
    call<T>(`${stack.sandbox.origin}${path}`, { method, ...(body !== undefined ? { body } : {}) });
  const applicationsOf = (id: string) =>
    [...stack.sandbox.context.store.get(id)!.data.applications.values()].filter((a) => a.deletedAt === null).map((a) => a.id);
  const placeOrder = (id: string, body: Record<string, unknown>) =>
    sandboxCall<OrderView>("POST", `/sandbox/integrations/${encodeURIComponent(id)}/assessment-orders`, body);
  const orderView = async (id: string, orderId: string) =>
    (await sandboxCall<OrderView>("GET", `/sandbox/integrations/${encodeURIComponent(id)}/assessment-orders/${orderId}`)).body;
  const hirebridgeOrders = async () =>
    (await call<AssessmentOrderPage>(`${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/assessment/orders`, { token }))
      .body;

  /** An ASSESSMENT integration in the sandbox for `org`, once Hirebridge recorded it (integration-created). */
  async function assessmentIntegration(org: string, bearer: string): Promise<string> {
    const created = await sandboxCall<{ id: string }>("POST", "/sandbox/integrations", { category: "ASSESSMENT", org_id: org });
    assert.equal(created.status, 201);
    const id = created.body.id;
    await eventually("the integration recorded", async () => {
      const res = await call(`${stack.proxyUrl}/integrations/${encodeURIComponent(id)}/summary`, { token: bearer });
      return res.status === 200 ? true : undefined;
    });
    return id;
  }

  /** The candidate the order became, found through the recruiting API. */
  async function candidateOfOrder(orderId: string) {
    const row = (await hirebridgeOrders()).items.find((o) => o.order_id === orderId);
    assert.ok(row?.candidate_id && row.position_id, "the order has its candidate and position");
    const base = `${stack.apiUrl}/org/${orgId}/positions/${row.position_id}/candidates/${row.candidate_id}`;
    const candidate = (await call<Candidate>(`${base}/`, { token })).body;
    const interview = (await call<Interview>(`${base}/interview/`, { token })).body;
    return { row, candidate, interview, interviewUrl: `${base}/interview/` };
  }

  before(async () => {
    stack = await startTestStack(getDb());
    const login = await stack.login();
    token = login.accessToken;
    orgId = login.orgId;
    const res = await call<Position>(`${stack.apiUrl}/org/${orgId}/position`, {
      method: "POST",
      token,
      body: {
        name: "Backend engineer interview",
        state: "template",
        role_description: "Structured interview on backend systems",
        min_score: 60,
        accepted_languages: ["en"],
      },
    });
    assert.equal(res.status, 200);
    template = res.body;
    integrationId = await assessmentIntegration(orgId, token);
    kombo = new Kombo({ api_key: stack.sandbox.apiKey, integration_id: integrationId, server_url: stack.sandbox.url });
  });
  after(async () => {
    await stack.close();
  });

  test("a template is published as a package (seen through the official SDK)", async () => {
    // The integration's first sync published it by itself (connect).
    await eventually("the packages of the first sync", async () => {
      const { data } = await kombo.assessment.getPackages();
      return data.packages.some((p) => p.id === template.id) ? true : undefined;
    });
    const res = await call<{ packages: { id: string }[] }>(
      `${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/assessment/packages/publish`,
      { method: "POST", token },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { data } = await kombo.assessment.getPackages();
    assert.deepEqual(
      data.packages.map((p) => ({ id: p.id, type: p.type, name: p.name, description: p.description })),
      [{ id: template.id, type: "VIDEO_INTERVIEW", name: template.name, description: "Structured interview on backend systems" }],
    );
    // Another organisation cannot publish to this integration.
    const other = await stack.login();
    const refused = await call(`${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/assessment/packages/publish`, {
      method: "POST",
      token: other.accessToken,
    });
    assert.equal(refused.status, 404);
  });

  test("an order becomes a candidate with an interview link; graded, the order is COMPLETED with the result", async () => {
    const placed = await placeOrder(integrationId, { application_id: applicationsOf(integrationId)[0], package_id: template.id });
    assert.equal(placed.status, 201);
    assert.equal(placed.body.receiver.state, "accepted");
    const { row, candidate, interview, interviewUrl } = await candidateOfOrder(placed.body.id);
    assert.deepEqual(
      { status: row.status, result: row.result_status, package: row.package_name },
      {
        status: "accepted",
        result: "OPEN",
        package: template.name,
      },
    );
    assert.equal(candidate.upstream_assessment_order_id, placed.body.id);
    assert.equal(candidate.email, placed.body.candidate.email);
    assert.equal(interview.status, "not_started");
    assert.match(interview.interview_link ?? "", /\/interview\/[A-Za-z0-9_-]{32}$/);
    // The order's job became a position made from the template.
    const position = (await call<Position>(`${stack.apiUrl}/org/${orgId}/position/${row.position_id}`, { token })).body;
    assert.equal(position.upstream_job_id_id, placed.body.job.remote_id);
    assert.equal(position.state, "active");

    assert.equal((await call(interviewUrl, { method: "PUT", token, body: { status: "completed" } })).status, 200);
    const graded = await call(interviewUrl, { method: "PUT", token, body: { status: "graded", score: 77, feedback: "Clear answers." } });
    assert.equal(graded.status, 200);
    const view = await eventually("the result on the order", async () => {
      const v = await orderView(integrationId, placed.body.id);
      return v.status === "COMPLETED" ? v : undefined;
    });
    assert.equal(view.result?.score, 77);
    assert.equal(view.result?.max_score, 100);
    assert.deepEqual(view.result?.attributes, [{ type: "TEXT", label: "Feedback", value: "Clear answers." }]);
    assert.equal(view.attachments.length, 1);
    assert.equal(view.attachments[0]!.content_type, "application/pdf");
    const pdf = Buffer.from(await (await fetch(view.attachments[0]!.download_url!)).arrayBuffer());
    assert.equal(pdf.subarray(0, 4).toString(), "%PDF");
    // The results page answers without a bearer token (on the recruiting API's origin).
    const resultsPath = new URL(view.result!.result_url).pathname;
    assert.match(resultsPath, /^\/assessment-results\/[A-Za-z0-9_-]{32}$/);
    const page = await fetch(`${new URL(stack.apiUrl).origin}${resultsPath}`, { headers: { accept: "text/html" } });
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("cache-control"), "no-store");
    assert.match(await page.text(), /Score: 77 \/ 100[\s\S]*Clear answers\./);
    const settled = await eventually("the order's record COMPLETED", async () => {
      const o = (await hirebridgeOrders()).items.find((x) => x.order_id === placed.body.id);
      return o?.result_status === "COMPLETED" ? o : undefined;
    });
    assert.equal(settled.candidate_name, candidate.name);
  });

  test("a cancelled interview cancels the order", async () => {
    const placed = await placeOrder(integrationId, { application_id: applicationsOf(integrationId)[1], package_id: template.id });
    assert.equal(placed.body.receiver.state, "accepted");
    const { interviewUrl } = await candidateOfOrder(placed.body.id);
    assert.equal((await call(interviewUrl, { method: "PUT", token, body: { status: "cancelled" } })).status, 200);
    const view = await eventually("the order CANCELLED", async () => {
      const v = await orderView(integrationId, placed.body.id);
      return v.status === "CANCELLED" ? v : undefined;
    });
    assert.equal(view.result?.status, "CANCELLED");
  });

  test("an inline order is answered with the interview link as assessment_url", async () => {
    const started = performance.now();
    const placed = await placeOrder(integrationId, {
      application_id: applicationsOf(integrationId)[2],
      package_id: template.id,
      inline: true,
    });
    assert.equal(placed.body.receiver.state, "accepted");
    // The career page waits for this answer: within 2 s, the sandbox's own work included.
    assert.ok(performance.now() - started < 2000, "answered within 2 s");
    const { interview } = await candidateOfOrder(placed.body.id);
    assert.equal(placed.body.assessment_url, interview.interview_link);
  });

  test("templates are republished by themselves: created, renamed and archived; an archived package's order is REJECTED", async () => {
    const packageIds = async () => (await kombo.assessment.getPackages()).data.packages.map((p) => `${p.id}:${p.name}`);
    const created = await call<Position>(`${stack.apiUrl}/org/${orgId}/position`, {
      method: "POST",
      token,
      body: { name: "Retired interview", state: "template", role_description: "old" },
    });
    assert.equal(created.status, 200);
    const retired = created.body.id;
    await eventually("the new template published", async () =>
      (await packageIds()).includes(`${retired}:Retired interview`) ? true : undefined,
    );
    const renamed = await call(`${stack.apiUrl}/org/${orgId}/position/${retired}`, {
      method: "PUT",
      token,
      body: { name: "Old interview" },
    });
    assert.equal(renamed.status, 200);
    await eventually("the rename published", async () => ((await packageIds()).includes(`${retired}:Old interview`) ? true : undefined));
    const archived = await call(`${stack.apiUrl}/org/${orgId}/position/${retired}`, { method: "PUT", token, body: { state: "inactive" } });
    assert.equal(archived.status, 200);
    await eventually("the archived template withdrawn", async () => {
      const ids = await packageIds();
      return ids.some((p) => p.startsWith(retired)) ? undefined : ids;
    });
    // An ATS that still offers it (a stale list) orders it: rejected with a message for the recruiter.
    await kombo.assessment.setPackages({
      packages: [
        { id: template.id, type: "VIDEO_INTERVIEW", name: template.name, description: "x" },
        { id: retired, type: "VIDEO_INTERVIEW", name: "Old interview", description: "old" },
      ],
    });
    const placed = await placeOrder(integrationId, { application_id: applicationsOf(integrationId)[3], package_id: retired });
    assert.equal(placed.body.status, "REJECTED");
    assert.match(placed.body.rejection_message ?? "", /no longer offered/);
    const row = (await hirebridgeOrders()).items.find((o) => o.order_id === placed.body.id);
    assert.deepEqual({ status: row?.status, candidate: row?.candidate_id }, { status: "rejected", candidate: null });
  });

  test("an order for a package that was never a template here is REJECTED with the message and creates nothing", async () => {
    const active = await call<Position>(`${stack.apiUrl}/org/${orgId}/position`, {
      method: "POST",
      token,
      body: { name: "An open job, not a package", state: "active" },
    });
    assert.equal(active.status, 200);
    // Not a uuid, a uuid of nothing, and a position that is not in state template.
    const unknown = ["pkg-from-elsewhere", "00000000-0000-4000-8000-000000000040", active.body.id];
    await kombo.assessment.setPackages({
      packages: [
        { id: template.id, type: "VIDEO_INTERVIEW", name: template.name, description: "x" },
        ...unknown.map((id) => ({ id, type: "VIDEO_INTERVIEW" as const, name: `Unknown ${id}`, description: "?" })),
      ],
    });
    const positionsUrl = `${stack.apiUrl}/org/${orgId}/position`;
    const before = (await call(positionsUrl, { token })).body;
    const apps = applicationsOf(integrationId);
    for (const [i, packageId] of unknown.entries()) {
      const placed = await placeOrder(integrationId, { application_id: apps[apps.length - 1 - i], package_id: packageId });
      assert.equal(placed.status, 201, packageId);
      assert.deepEqual(
        { status: placed.body.status, receiver: placed.body.receiver.last_status, url: placed.body.assessment_url },
        { status: "REJECTED", receiver: 422, url: null },
        packageId,
      );
      assert.match(placed.body.rejection_message ?? "", /^This interview package is no longer offered\./, packageId);
      const row = (await hirebridgeOrders()).items.find((o) => o.order_id === placed.body.id);
      assert.deepEqual(
        { status: row?.status, candidate: row?.candidate_id, position: row?.position_id, message: row?.message },
        { status: "rejected", candidate: null, position: null, message: placed.body.rejection_message },
        packageId,
      );
    }
    assert.deepEqual((await call(positionsUrl, { token })).body, before, "no position made for a rejected order");
  });

  test("an order whose webhook never came is picked up by the integration's sync", async () => {
    const webhookUrl = stack.sandbox.context.settings.webhook_url;
    assert.equal((await sandboxCall("PUT", "/sandbox/config", { webhook_url: null })).status, 200);
    const placed = await placeOrder(integrationId, { application_id: applicationsOf(integrationId)[4], package_id: template.id });
    assert.equal((await sandboxCall("PUT", "/sandbox/config", { webhook_url: webhookUrl })).status, 200);
    assert.equal(placed.body.receiver.state, "not_sent");
    const sync = await call(`${stack.proxyUrl}/webhooks/sync-all?integration_id=${encodeURIComponent(integrationId)}`, {
      method: "POST",
      token,
    });
    assert.equal(sync.status, 200);
    const row = await eventually("the missed order taken", async () =>
      (await hirebridgeOrders()).items.find((o) => o.order_id === placed.body.id && o.status === "accepted"),
    );
    const { candidate } = await candidateOfOrder(row.order_id);
    assert.equal(candidate.upstream_assessment_order_id, placed.body.id);
  });

  test("an ATS integration with orders off rejects an order with a message and creates nothing", async () => {
    const other = await stack.login(stack.sandbox.demoOrgId);
    const demo = stack.sandbox.demoIntegrationId;
    const settingsUrl = `${stack.proxyUrl}/integrations/${encodeURIComponent(demo)}/assessment/settings`;
    assert.equal((await call<{ takes_orders: boolean }>(settingsUrl, { token: other.accessToken })).body.takes_orders, false);
    // A package of its own organisation: only the switch can be why the order is refused.
    const pkg = await call<Position>(`${stack.apiUrl}/org/${stack.sandbox.demoOrgId}/position`, {
      method: "POST",
      token: other.accessToken,
      body: { name: "Switched-off interview", state: "template", role_description: "Off" },
    });
    assert.equal(pkg.status, 200);
    const positionsUrl = `${stack.apiUrl}/org/${stack.sandbox.demoOrgId}/position`;
    const before = (await call(positionsUrl, { token: other.accessToken })).body;
    // The ATS offers it (as a list left from when the switch was on would): the sandbox orders only offered packages.
    const demoKombo = new Kombo({ api_key: stack.sandbox.apiKey, integration_id: demo, server_url: stack.sandbox.url });
    await demoKombo.assessment.setPackages({ packages: [{ id: pkg.body.id, type: "VIDEO_INTERVIEW", name: "x", description: "x" }] });
    const placed = await placeOrder(demo, { application_id: applicationsOf(demo)[0], package_id: pkg.body.id });
    assert.equal(placed.status, 201);
    assert.equal(placed.body.status, "REJECTED");
    assert.equal(placed.body.receiver.last_status, 422);
    assert.match(placed.body.rejection_message ?? "", /not set up for Hirebridge interview orders.*turn on assessment orders/);
    // The receiver itself: 422 {message}, as the upstream expects.
    const body = JSON.stringify({
      id: "evt-switched-off",
      type: "assessment:order-received",
      data: {
        id: "order-switched-off",
        package_id: pkg.body.id,
        status: "OPEN",
        integration_id: demo,
        candidate: { remote_id: "cand-off", email: "off@example.test", first_name: "Off", last_name: "Switch", phone: null },
        application: { remote_id: "app-off" },
        job: { remote_id: "job-off", name: "Switched-off job", job_code: null, description: null, location: null, hiring_team: [] },
      },
    });
    const direct = await fetch(`${stack.proxyUrl}/webhooks/upstream/assessment-order-received`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-kombo-signature": signWebhookBody(body, stack.sandbox.webhookSecret) },
      body,
    });
    assert.equal(direct.status, 422);
    const answer = (await direct.json()) as { message: string };
    assert.deepEqual(Object.keys(answer), ["message"]);
    assert.match(answer.message, /not set up for Hirebridge interview orders/);
    // Nothing written: no order recorded, no position, no candidate.
    const recorded = await call<AssessmentOrderPage>(`${stack.proxyUrl}/integrations/${encodeURIComponent(demo)}/assessment/orders`, {
      token: other.accessToken,
    });
    assert.equal(recorded.status, 200);
    assert.deepEqual(recorded.body.items, []);
    assert.deepEqual((await call(positionsUrl, { token: other.accessToken })).body, before);
  });

  test("an ATS integration takes orders once its organisation turns it on", async () => {
    const other = await stack.login(stack.sandbox.demoOrgId);
    const demo = stack.sandbox.demoIntegrationId;
    const settingsUrl = `${stack.proxyUrl}/integrations/${encodeURIComponent(demo)}/assessment/settings`;
    assert.deepEqual((await call<{ takes_orders: boolean }>(settingsUrl, { token: other.accessToken })).body.takes_orders, false);
    const created = await call<Position>(`${stack.apiUrl}/org/${stack.sandbox.demoOrgId}/position`, {
      method: "POST",
      token: other.accessToken,
      body: { name: "Demo interview", state: "template", role_description: "Demo" },
    });
    const on = await call<{ takes_orders: boolean; published_at: string | null }>(settingsUrl, {
      method: "PUT",
      token: other.accessToken,
      body: { takes_orders: true },
    });
    assert.equal(on.status, 200);
    assert.equal(on.body.takes_orders, true);
    assert.ok(on.body.published_at);
    const demoKombo = new Kombo({ api_key: stack.sandbox.apiKey, integration_id: demo, server_url: stack.sandbox.url });
    const { data } = await demoKombo.assessment.getPackages();
    assert.ok(data.packages.some((p) => p.id === created.body.id && p.name === "Demo interview"));
    // Another organisation can neither read nor change it.
    assert.equal((await call(settingsUrl, { method: "PUT", token, body: { takes_orders: false } })).status, 404);
    // Turned on, an order is taken.
    const placed = await placeOrder(demo, { application_id: applicationsOf(demo)[1], package_id: created.body.id });
    assert.equal(placed.body.receiver.last_status, 200);
    const orders = await call<AssessmentOrderPage>(`${stack.proxyUrl}/integrations/${encodeURIComponent(demo)}/assessment/orders`, {
      token: other.accessToken,
    });
    const row = orders.body.items.find((o) => o.order_id === placed.body.id);
    assert.equal(row?.status, "accepted");
    assert.ok(row.candidate_id);
  });

  test("the same order webhook three times gives one order and one candidate", async () => {
    const email = "thrice@example.test";
    const body = JSON.stringify({
      id: "evt-thrice",
      type: "assessment:order-received",
      data: {
        id: "order-thrice",
        package_id: template.id,
        status: "OPEN",
        integration_id: integrationId,
        candidate: { remote_id: "cand-thrice", email, first_name: "Tri", last_name: "Ple", phone: null },
        application: { remote_id: "app-thrice" },
        job: { remote_id: "job-thrice", name: "Platform engineer", job_code: null, description: null, location: null, hiring_team: [] },
      },
    });
    const send = () =>
      fetch(`${stack.proxyUrl}/webhooks/upstream/assessment-order-received`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-kombo-signature": signWebhookBody(body, stack.sandbox.webhookSecret) },
        body,
      });
    const answers = await Promise.all([send(), send(), send()]);
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200],
    );
    const orders = (await hirebridgeOrders()).items.filter((o) => o.order_id === "order-thrice");
    assert.equal(orders.length, 1);
    const candidates = (await call<Candidate[]>(`${stack.apiUrl}/org/${orgId}/positions/${orders[0]!.position_id}/`, { token })).body;
    assert.equal(candidates.filter((c) => c.email === email).length, 1);
    // Unsigned: refused, nothing recorded.
    const unsigned = await fetch(`${stack.proxyUrl}/webhooks/upstream/assessment-order-received`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    assert.equal(unsigned.status, 401);
    // Signed but malformed: the contract's 422, naming the field.
    const bad = JSON.stringify({ ...JSON.parse(body), id: "evt-bad", data: { ...JSON.parse(body).data, package_id: undefined } });
    const malformed = await fetch(`${stack.proxyUrl}/webhooks/upstream/assessment-order-received`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-kombo-signature": signWebhookBody(bad, stack.sandbox.webhookSecret) },
      body: bad,
    });
    assert.equal(malformed.status, 422);
    const detail = ((await malformed.json()) as { detail: { loc: (string | number)[] }[] }).detail;
    assert.ok(
      detail.some((d) => d.loc.join(".") === "body.data.package_id"),
      JSON.stringify(detail),
    );
  });

  test("a burst of orders for one job, each delivered twice at once, becomes one candidate each", async () => {
    const n = 60;
    const bodies = Array.from({ length: n }, (_, i) =>
      JSON.stringify({
        id: `evt-burst-${i}`,
        type: "assessment:order-received",
        data: {
          id: `order-burst-${i}`,
          package_id: template.id,
          status: "OPEN",
          integration_id: integrationId,
          candidate: {
            remote_id: `cand-burst-${i}`,
            email: `burst-${i}@example.test`,
            first_name: "Burst",
            last_name: `${i}`,
            phone: null,
          },
          application: { remote_id: `app-burst-${i}` },
          job: { remote_id: "job-burst", name: "Burst engineer", job_code: null, description: null, location: null, hiring_team: [] },
        },
      }),
    );
    const send = (body: string) =>
      fetch(`${stack.proxyUrl}/webhooks/upstream/assessment-order-received`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-kombo-signature": signWebhookBody(body, stack.sandbox.webhookSecret) },
        body,
      }).then((r) => r.status);
    const statuses = await Promise.all([...bodies, ...bodies].map(send));
    assert.deepEqual(new Set(statuses), new Set([200]));
    const orders = [];
    let after: string | null = null;
    do {
      const url: string = `${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/assessment/orders?limit=200${after ? `&after=${after}` : ""}`;
      const page: AssessmentOrderPage = (await call<AssessmentOrderPage>(url, { token })).body;
      orders.push(...page.items.filter((o) => o.order_id.startsWith("order-burst-")));
      after = page.next;
    } while (after);
    assert.equal(orders.length, n);
    assert.equal(new Set(orders.map((o) => o.position_id)).size, 1, "one position for the job");
    // And no second position for the job was made beside it (one whose order went elsewhere).
    const listed = (await call<Position[] | { items: Position[] }>(`${stack.apiUrl}/org/${orgId}/position`, { token })).body;
    const all = Array.isArray(listed) ? listed : listed.items;
    assert.deepEqual(
      all.filter((p) => p.upstream_job_id_id === "job-burst").map((p) => p.id),
      [orders[0]!.position_id],
    );
    const candidates = (await call<Candidate[]>(`${stack.apiUrl}/org/${orgId}/positions/${orders[0]!.position_id}/`, { token })).body;
    assert.equal(candidates.filter((c) => c.email.startsWith("burst-")).length, n);
  });

  test("the order listing pages newest first", async () => {
    const all = (await hirebridgeOrders()).items;
    assert.ok(all.length >= 3);
    const url = `${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/assessment/orders`;
    const seen: string[] = [];
    let next: string | null = null;
    do {
      const page: { status: number; body: AssessmentOrderPage } = await call<AssessmentOrderPage>(
        `${url}?limit=2${next ? `&after=${next}` : ""}`,
        { token },
      );
      assert.equal(page.status, 200);
      seen.push(...page.body.items.map((o) => o.id));
      next = page.body.next;
    } while (next);
    // The default page (50) is the start of the whole list; the pages repeat and skip nothing.
    assert.deepEqual(
      seen.slice(0, all.length),
      all.map((o) => o.id),
    );
    assert.equal(new Set(seen).size, seen.length);
    assert.ok(seen.length > all.length, "more than one default page after the burst");
    assert.ok(all.every((o, i) => i === 0 || o.created_at <= all[i - 1]!.created_at));
    assert.equal((await call(`${url}?after=nonsense`, { token })).status, 422);
  });

  test("an order from another organisation's integration creates nothing here and is rejected", async () => {
    const other = await stack.login();
    const otherIntegration = await assessmentIntegration(other.orgId, other.accessToken);
    // That ATS offers this organisation's package id (as a stale or forged list would).
    const otherKombo = new Kombo({ api_key: stack.sandbox.apiKey, integration_id: otherIntegration, server_url: stack.sandbox.url });
    await otherKombo.assessment.setPackages({ packages: [{ id: template.id, type: "VIDEO_INTERVIEW", name: "x", description: "x" }] });
    const before = (await call<Position[] | { items: Position[] }>(`${stack.apiUrl}/org/${orgId}/position`, { token })).body;
    const placed = await placeOrder(otherIntegration, { application_id: applicationsOf(otherIntegration)[0], package_id: template.id });
    assert.equal(placed.body.status, "REJECTED");
    assert.match(placed.body.rejection_message ?? "", /no longer offered/);
    const afterwards = (await call<Position[] | { items: Position[] }>(`${stack.apiUrl}/org/${orgId}/position`, { token })).body;
    assert.deepEqual(afterwards, before);
    const otherOrders = await call<AssessmentOrderPage>(
      `${stack.proxyUrl}/integrations/${encodeURIComponent(otherIntegration)}/assessment/orders`,
      { token: other.accessToken },
    );
    assert.deepEqual(
      otherOrders.body.items.map((o) => ({ status: o.status, candidate: o.candidate_id, position: o.position_id })),
      [{ status: "rejected", candidate: null, position: null }],
    );
  });
});
