import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { signWebhookBody } from "../../../src/shared/upstream/webhook-signature.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call, startTestStack, type TestStack } from "../../helpers/stack.js";

const LIMIT = 40;
const eventId = () => randomBytes(12).toString("base64url");

/**
 * The receivers are outside the per-caller rate limit (an authentic event is never refused for
 * rate; junk counts in a bucket of its own), and an event storage cannot hold is a 422, not a 500
 * the upstream would retry for ever.
 */
describeEachDatabase("webhook receivers: rate limits and input storage cannot hold", (getDb) => {
  let stack: TestStack;
  let integrationId: string;
  before(async () => {
    stack = await startTestStack(getDb(), {
      sandbox: { applications: 5, webhookUrl: undefined as never },
      config: { RATE_LIMIT_PER_MINUTE: LIMIT, TRUST_PROXY: 1 },
    });
    integrationId = stack.sandbox.demoIntegrationId;
    const token = (await stack.login(stack.sandbox.demoOrgId)).accessToken;
    assert.equal((await call(`${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}`, { token })).status, 200);
  });
  after(() => stack.close());

  const receiver = (kind: string) => `${stack.proxyUrl}/webhooks/upstream/${kind}`;
  // connection-flow-failed names no integration, so its receiver only stores it (its job logs it).
  const flowFailed = (id: string, data: Record<string, unknown> = {}) => ({
    id,
    type: "connection-flow-failed",
    data: { integration_tool: "greenhouse", integration_category: "ATS", end_user: { origin_id: stack.sandbox.demoOrgId }, ...data },
  });
  async function post(kind: string, raw: string | Buffer, signed = true, query = "", forwardedFor?: string) {
    const res = await fetch(`${receiver(kind)}${query}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}),
        ...(signed ? { "x-kombo-signature": signWebhookBody(raw, stack.sandbox.webhookSecret) } : {}),
      },
      body: typeof raw === "string" ? raw : new Uint8Array(raw),
    });
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as { detail?: unknown } };
  }
  const stored = async (ids: string[]) =>
    (await getDb().query<{ n: number }>("select count(*)::int as n from webhook_events where id = any($1)", [ids]))[0]!.n;

  test(`a burst of ${LIMIT * 3} signed events from one address (RATE_LIMIT_PER_MINUTE=${LIMIT}): every one 200 and stored`, async () => {
    const ids = Array.from({ length: LIMIT * 3 }, eventId);
    const statuses: Record<number, number> = {};
    for (let i = 0; i < ids.length; i += 20) {
      const batch = await Promise.all(ids.slice(i, i + 20).map((id) => post("connection-flow-failed", JSON.stringify(flowFailed(id)))));
      for (const r of batch) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    }
    const n = await stored(ids);
    console.log(`webhook burst: sent ${ids.length}, limit ${LIMIT}/min, statuses ${JSON.stringify(statuses)}, stored ${n}`);
    assert.deepEqual(statuses, { 200: ids.length });
    assert.equal(n, ids.length);
  });

  /**
   * The junk bucket counts per wall-clock minute (shared/http/address-bucket.ts): a run of requests
   * that crossed into the next minute would start counting again halfway. Starts such a run with
   * at least 5 s of the current minute left.
   */
  async function withinOneMinute(): Promise<void> {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 5_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
  }

  test("unsigned junk is limited per address in its own bucket, and never crowds out a signed event", async () => {
    await withinOneMinute();
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < LIMIT + 5; i++) {
      // Every fifth one with a query secret storage could not hold: still 401 (authenticity first), and counted.
      const r = await post(
        "connection-flow-failed",
        JSON.stringify(flowFailed(eventId())),
        false,
        i % 5 === 0 ? "?webhook_secret=a%00b" : "",
      );
      statuses.push(r.status);
      if (r.status === 429) retryAfter = r.retryAfter;
    }
    assert.ok(
      statuses.slice(0, LIMIT).every((s) => s === 401),
      `first ${LIMIT} unsigned: 401`,
    );
    assert.ok(
      statuses.slice(LIMIT).every((s) => s === 429),
      "then 429",
    );
    assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `Retry-After ${retryAfter}`);
    const id = eventId();
    const signed = await post("connection-flow-failed", JSON.stringify(flowFailed(id)));
    assert.equal(signed.status, 200, JSON.stringify(signed.body));
    assert.equal(await stored([id]), 1);
  });

  test("behind a trusted balancer (TRUST_PROXY=1) junk is counted per sender, not per balancer", async () => {
    const junk = (from: string) => post("connection-flow-failed", JSON.stringify(flowFailed(eventId())), false, "", from);
    await withinOneMinute();
    for (let i = 0; i < LIMIT; i++) assert.equal((await junk("203.0.113.7")).status, 401);
    assert.equal((await junk("203.0.113.7")).status, 429);
    assert.equal((await junk("203.0.113.8")).status, 401, "another sender behind the same balancer is not held back");
  });

  const poison: [string, () => string | Buffer, (string | number)[]][] = [
    ["NUL in the event id", () => JSON.stringify(flowFailed(`ev\u0000${eventId()}`)), ["body", "id"]],
    [
      "NUL in data.integration_tool",
      () => JSON.stringify(flowFailed(eventId(), { integration_tool: "green\u0000house" })),
      ["body", "data", "integration_tool"],
    ],
    [
      "NUL in a nested string",
      () => JSON.stringify(flowFailed(eventId(), { end_user: { origin_id: "x", name: "A\u0000B" } })),
      ["body", "data", "end_user", "name"],
    ],
    ["a lone surrogate", () => JSON.stringify(flowFailed(eventId(), { note: "\ud800" })), ["body", "data", "note"]],
    ["NUL in a key", () => JSON.stringify(flowFailed(eventId(), { ["k\u0000"]: 1 })), ["body", "data", "k\u0000"]],
    [
      "bytes that are not UTF-8",
      () => Buffer.concat([Buffer.from('{"id":"'), Buffer.from([0xff, 0xfe]), Buffer.from('","type":"connection-flow-failed","data":{}}')]),
      ["body"],
    ],
  ];
  for (const [label, body, loc] of poison) {
    test(`a signed event with ${label} is 422 naming the field, and nothing is stored`, async () => {
      const raw = body();
      const before = (await getDb().query<{ n: number }>("select count(*)::int as n from webhook_events"))[0]!.n;
      const res = await post("connection-flow-failed", raw);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      const detail = res.body.detail as { loc: unknown[]; type: string }[];
      assert.ok(
        detail.some((d) => JSON.stringify(d.loc) === JSON.stringify(loc)),
        `loc ${JSON.stringify(loc)} in ${JSON.stringify(detail)}`,
      );
      const after = (await getDb().query<{ n: number }>("select count(*)::int as n from webhook_events"))[0]!.n;
      assert.equal(after, before);
    });
  }
});
