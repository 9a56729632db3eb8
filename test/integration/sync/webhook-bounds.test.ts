import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import type { WebhookEventList } from "../../../src/contracts/proxy/webhook-events.js";
import {
  stringFields,
  WEBHOOK_DATA_BOUNDS,
  WEBHOOK_ENVELOPE_BOUNDS,
  type FieldBound,
} from "../../../src/contracts/proxy/webhook-bounds.js";
import type { WebhookKind } from "../../../src/contracts/proxy/webhooks.js";
import { signWebhookBody } from "../../../src/shared/upstream/webhook-signature.js";
import { QUEUES } from "../../../src/shared/jobs/queue.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call, eventually, startTestStack, type TestStack } from "../../helpers/stack.js";

const newId = () => `evt-${randomBytes(9).toString("base64url")}`;
type Delivery = { status: number; body: string };

/** `n` random ASCII letters: incompressible enough that storage keeps them at full length (no TOAST compression to hide them). */
function letters(n: number): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const bytes = randomBytes(n);
  let s = "";
  for (let i = 0; i < n; i++) s += alphabet[bytes[i]! % alphabet.length];
  return s;
}

/** A valid event of each kind about `integration` (the stack's demo integration), every field present. */
function validData(kind: WebhookKind, integration: string, orgId: string): Record<string, unknown> {
  const endUser = { organization_name: "Acme", creator_email: "ops@example.com", origin_id: orgId };
  const tool = { integration_tool: "greenhouse", integration_category: "ATS" };
  const at = "2026-01-31T12:00:00.000Z";
  switch (kind) {
    case "data-changed":
      return { integration_id: integration, ...tool, changed_models: [{ name: "ats_users" }] };
    case "sync-finished":
      return {
        sync_id: "sync-1",
        sync_state: "CANCELLED",
        sync_started_at: at,
        sync_ended_at: at,
        sync_duration_seconds: 3,
        integration_id: integration,
        ...tool,
        end_user: endUser,
        log_url: "https://example.com/log",
      };
    case "integration-created":
      return { id: integration, tool: "greenhouse", category: "ATS", end_user: endUser };
    case "integration-deleted":
      return { id: integration, tool: "greenhouse", category: "ATS", end_user: endUser, deleted_at: at };
    case "connection-flow-failed":
      return { ...tool, end_user: endUser, log_url: "https://example.com/log" };
    case "integration-state-changed":
      return {
        integration_id: integration,
        ...tool,
        end_user: endUser,
        qa_status: "PASSED",
        setup_status: "COMPLETED",
        state: "ACTIVE",
        updated_at: at,
      };
  }
}

/** `data` with the value at `path` (a stringFields path: `[]` is the first item) replaced. */
function withValue(data: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(data);
  let at: Record<string, unknown> | unknown[] = copy;
  path.forEach((key, i) => {
    const k = key === "[]" ? 0 : key;
    if (i === path.length - 1) (at as Record<string | number, unknown>)[k] = value;
    else at = (at as Record<string | number, unknown>)[k] as Record<string, unknown>;
  });
  return copy;
}

/**
 * Issue 38, defect 1: an over-long id in a signed event is refused alone (422), before the group
 * commit, so it never fails the commit of the events beside it (it used to fail every event of its
 * commit with 503, on every retry).
 */
describeEachDatabase("webhook intake bounds", (getDb) => {
  let stack: TestStack;
  let integration: string;
  before(async () => {
    stack = await startTestStack(getDb(), { sandbox: { applications: 5, webhookUrl: undefined as never } });
    integration = stack.sandbox.demoIntegrationId;
    const token = (await stack.login(stack.sandbox.demoOrgId)).accessToken;
    assert.equal((await call(`${stack.proxyUrl}/integrations/${encodeURIComponent(integration)}`, { token })).status, 200);
  });
  after(async () => {
    await stack.close();
  });

  const deliver = async (kind: string, raw: string): Promise<Delivery> => {
    const res = await fetch(`${stack.proxyUrl}/webhooks/upstream/${kind}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-kombo-signature": signWebhookBody(raw, stack.sandbox.webhookSecret) },
      body: raw,
    });
    return { status: res.status, body: await res.text() };
  };
  const dataChanged = (id: string, integrationId = integration) =>
    JSON.stringify({
      id,
      type: "data-changed",
      data: {
        integration_id: integrationId,
        integration_tool: "greenhouse",
        integration_category: "ATS",
        changed_models: [{ name: "ats_users" }],
      },
    });
  const event = (kind: WebhookKind, id: string, data: Record<string, unknown>) => JSON.stringify({ id, type: kind, data });
  const stored = async (ids: string[]) =>
    (await getDb().query<{ id: string }>("select id from webhook_events where id = any($1::text[])", [ids])).map((r) => r.id);

  test("3 events with a 2,700-letter integration id among 200 good ones, sent at once: the good ones 200, the long ones 422", async () => {
    const good = Array.from({ length: 200 }, newId);
    const long = [newId(), newId(), newId()];
    const at = new Set([17, 101, 188]);
    const sends: Promise<Delivery>[] = [];
    let l = 0;
    good.forEach((id, i) => {
      if (at.has(i)) sends.push(deliver("data-changed", dataChanged(long[l++]!, `greenhouse:${letters(2700)}`)));
      sends.push(deliver("data-changed", dataChanged(id)));
    });
    const answers = await Promise.all(sends);
    const longAnswers = answers.filter((_, i) => i === 17 || i === 102 || i === 190);
    const goodAnswers = answers.filter((_, i) => !(i === 17 || i === 102 || i === 190));
    assert.deepEqual(
      goodAnswers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.body.slice(0, 200)}`),
      [],
      "every good event is acknowledged",
    );
    for (const a of longAnswers) {
      assert.equal(a.status, 422, a.body.slice(0, 300));
      assert.deepEqual(JSON.parse(a.body), {
        detail: [{ loc: ["body", "data", "integration_id"], msg: "String should have at most 255 characters", type: "string_too_long" }],
      });
    }
    assert.equal((await stored(good)).length, good.length, "every good event is stored");
    assert.deepEqual(await stored(long), [], "no long one is stored");
  });
  test("sweep: every string field of the six kinds at 10x its bound, incompressible, is 422 at that field and stores nothing", async () => {
    const kinds = Object.keys(WEBHOOK_DATA_BOUNDS) as WebhookKind[];
    const sent: string[] = [];
    let fields = 0;
    for (const kind of kinds) {
      const base = validData(kind, integration, stack.sandbox.demoOrgId);
      for (const { path, bound } of stringFields(WEBHOOK_DATA_BOUNDS[kind])) {
        fields++;
        const id = newId();
        sent.push(id);
        const res = await deliver(kind, event(kind, id, withValue(base, path, letters(bound.max * 10))));
        const loc = ["body", "data", ...path.map((k) => (k === "[]" ? 0 : k))];
        assert.equal(res.status, 422, `${kind} ${path.join(".")}: ${res.body.slice(0, 200)}`);
        assert.deepEqual(JSON.parse(res.body), {
          detail: [{ loc, msg: `String should have at most ${bound.max} characters`, type: "string_too_long" }],
        });
      }
      // The envelope's id too, on every receiver.
      const max = (WEBHOOK_ENVELOPE_BOUNDS["id"] as Extract<FieldBound, { type: "string" }>).max;
      const longId = letters(max * 10);
      sent.push(longId);
      const res = await deliver(kind, event(kind, longId, base));
      assert.equal(res.status, 422, res.body.slice(0, 200));
      assert.deepEqual(JSON.parse(res.body).detail, [
        { loc: ["body", "id"], msg: `String should have at most ${max} characters`, type: "string_too_long" },
      ]);
    }
    assert.ok(fields >= 30, `${fields} string fields swept`);
    assert.deepEqual(await stored(sent), [], "nothing of them is stored");
  });

  test("each kind with every string field at its bound (ids of 255, dates valid) is stored", async () => {
    const kinds = Object.keys(WEBHOOK_DATA_BOUNDS) as WebhookKind[];
    for (const kind of kinds) {
      let data = validData(kind, integration, stack.sandbox.demoOrgId);
      for (const { path, bound } of stringFields(WEBHOOK_DATA_BOUNDS[kind])) {
        // The integration stays the demo one (an unknown one is a 404), and dates stay dates.
        if (bound.format || path[0] === "integration_id" || path[0] === "id") continue;
        data = withValue(data, path, letters(bound.max));
      }
      const id = letters(255);
      const res = await deliver(kind, event(kind, id, data));
      assert.equal(res.status, 200, `${kind}: ${res.body.slice(0, 300)}`);
      assert.deepEqual(await stored([id]), [id]);
    }
  });
});

/**
 * Issue 38, defect 4: poison events of every kind fail fast. Intake refuses what the work cannot
 * read (422); an event stored before intake checked it fails at once, with its reason, listed for
 * re-drive, instead of being retried for a quarter of an hour.
 */
describeEachDatabase("poison events of every kind fail fast", (getDb) => {
  let stack: TestStack;
  let integration: string;
  let orgId: string;
  let token: string;
  before(async () => {
    stack = await startTestStack(getDb(), { sandbox: { applications: 5, webhookUrl: undefined as never } });
    integration = stack.sandbox.demoIntegrationId;
    orgId = stack.sandbox.demoOrgId;
    token = (await stack.login(orgId)).accessToken;
    assert.equal((await call(`${stack.proxyUrl}/integrations/${encodeURIComponent(integration)}`, { token })).status, 200);
  });
  after(async () => {
    await stack.close();
  });

  const deliver = async (kind: string, body: unknown): Promise<Delivery> => {
    const raw = JSON.stringify(body);
    const res = await fetch(`${stack.proxyUrl}/webhooks/upstream/${kind}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-kombo-signature": signWebhookBody(raw, stack.sandbox.webhookSecret) },
      body: raw,
    });
    return { status: res.status, body: await res.text() };
  };
  const poison = (): [WebhookKind, Record<string, unknown>, (string | number)[], string][] => {
    const { end_user: _, ...noEndUser } = validData("integration-state-changed", integration, orgId);
    const { changed_models: _m, ...noModels } = validData("data-changed", integration, orgId);
    const { tool: _t, ...noTool } = validData("integration-created", integration, orgId);
    return [
      ["integration-state-changed", noEndUser, ["body", "data", "end_user"], "missing"],
      [
        "integration-state-changed",
        { ...validData("integration-state-changed", integration, orgId), updated_at: "2026-99-99T99:99" },
        ["body", "data", "updated_at"],
        "datetime_parsing",
      ],
      [
        "integration-deleted",
        { ...validData("integration-deleted", integration, orgId), deleted_at: "2026-99-99T99:99" },
        ["body", "data", "deleted_at"],
        "datetime_parsing",
      ],
      [
        "integration-deleted",
        { ...validData("integration-deleted", integration, orgId), deleted_at: "2026-02-30T10:00:00Z" },
        ["body", "data", "deleted_at"],
        "datetime_parsing",
      ],
      [
        "sync-finished",
        { ...validData("sync-finished", integration, orgId), sync_state: 7 },
        ["body", "data", "sync_state"],
        "string_type",
      ],
      ["data-changed", noModels, ["body", "data", "changed_models"], "missing"],
      ["integration-created", noTool, ["body", "data", "tool"], "missing"],
      [
        "connection-flow-failed",
        { ...validData("connection-flow-failed", integration, orgId), end_user: "Acme" },
        ["body", "data", "end_user"],
        "model_type",
      ],
    ];
  };

  test("intake: a poison event of any kind is 422 at its field, and nothing is stored", async () => {
    assert.equal(new Set(poison().map(([kind]) => kind)).size, 6, "every kind has a poison event");
    for (const [kind, data, loc, type] of poison()) {
      const id = newId();
      const res = await deliver(kind, { id, type: kind, data });
      assert.equal(res.status, 422, `${kind} ${loc.join(".")}: ${res.body}`);
      const detail = (JSON.parse(res.body) as { detail: { loc: unknown[]; type: string }[] }).detail;
      assert.deepEqual(
        detail.map((d) => [d.loc, d.type]),
        [[loc, type]],
      );
      assert.deepEqual(await getDb().query("select id from webhook_events where id = $1", [id]), []);
    }
  });

  test("work: a poison event stored before intake checked it fails at once with its reason, listed for re-drive", async () => {
    const ids: string[] = [];
    for (const [kind, data] of poison()) {
      const id = newId();
      ids.push(id);
      await getDb().query("insert into webhook_events (id, type, integration_id, org_id, payload) values ($1, $2, $3, $4, $5)", [
        id,
        kind,
        integration,
        orgId,
        JSON.stringify({ id, type: kind, data }),
      ]);
      await stack.queue.send(QUEUES.webhookEvents, { eventId: id });
    }
    const t0 = Date.now();
    // The queue's first retry comes after its backoff; failing at once is well within it.
    const rows = await eventually(
      "every poison event failed",
      async () => {
        const r = await getDb().query<{ id: string; status: string; attempts: number; message: string }>(
          "select id, status, attempts, message from webhook_events where id = any($1::text[]) order by id",
          [ids],
        );
        return r.every((x) => x.status === "failed") ? r : undefined;
      },
      20_000,
    );
    const took = Date.now() - t0;
    assert.ok(took < 15_000, `failed after ${took} ms`);
    for (const row of rows) {
      assert.equal(row.attempts, 1, `${row.id} tried once`);
      assert.match(row.message, /^the event cannot be processed: data\.(end_user|updated_at|deleted_at|sync_state|changed_models|tool): /);
    }
    const listed = (await call<WebhookEventList>(`${stack.proxyUrl}/webhooks/events?status=failed`, { token })).body.items;
    assert.deepEqual(
      listed
        .filter((e) => ids.includes(e.id))
        .map((e) => e.id)
        .sort(),
      [...ids].sort(),
    );
    const missing = listed.find((e) => e.id === ids[0]);
    assert.equal(missing?.last_error, "the event cannot be processed: data.end_user: Field required");
  });
});
