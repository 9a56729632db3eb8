import assert from "node:assert/strict";
import { test } from "node:test";
import type {
  WebhookDeliveryList,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointList,
} from "../../../src/contracts/webhooks-out/endpoints.js";
import { EVENT_TYPES, type EventTypeCatalogue } from "../../../src/contracts/webhooks-out/events.js";
import type { Resolve } from "../../../src/services/webhooks-out/targets.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { eventually } from "../../helpers/stack.js";
import { useWebhooksApi } from "./harness.js";
import { startReceiver } from "./receiver.js";

/** Where rebind.example.com points now (a name the test re-points: DNS rebinding). */
let rebindTo = "93.184.216.34";

/** A resolver standing in for DNS: names of the test, each with its addresses. */
const fakeDns: Resolve = async (host) => {
  const table: Record<string, string[]> = {
    "rebind.example.com": [rebindTo],
    "hooks.example.com": ["93.184.216.34"],
    localhost: ["127.0.0.1", "::1"],
    "intranet.example.com": ["10.1.2.3"],
    "mixed.example.com": ["93.184.216.34", "192.168.1.10"],
    "metadata.example.com": ["169.254.169.254"],
  };
  const found = table[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

describeEachDatabase("webhook endpoints", (getDb) => {
  const api = useWebhooksApi(getDb, { config: { WEBHOOK_TARGETS: "public", WEBHOOK_SECRET_OVERLAP_SECONDS: 3600 }, resolve: fakeDns });

  test("create answers the secret once; list, get, update and delete manage the endpoint", async () => {
    const me = await api().login();
    const created = await me.org<WebhookEndpointCreated>("POST", "/webhook-endpoints", {
      url: "https://hooks.example.com/hirebridge",
      description: "interview product",
      event_types: ["candidate.created"],
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(Buffer.from(created.body.secret.slice(6), "base64").length, 32);
    const { secret, ...endpoint } = created.body;
    assert.deepEqual(
      { ...endpoint, id: "", created_at: "", updated_at: "" },
      {
        id: "",
        url: "https://hooks.example.com/hirebridge",
        description: "interview product",
        event_types: ["candidate.created"],
        disabled: false,
        disabled_reason: null,
        failing_since: null,
        previous_secret_expires_at: null,
        expires_at: null,
        created_at: "",
        updated_at: "",
      },
    );

    const list = await me.org<WebhookEndpointList>("GET", "/webhook-endpoints");
    assert.deepEqual(list, { status: 200, body: { items: [endpoint] } });
    assert.ok(!JSON.stringify(list.body).includes(secret), "the secret is not shown again");
    assert.deepEqual(await me.org("GET", `/webhook-endpoints/${endpoint.id}`), { status: 200, body: endpoint });

    const patched = await me.org<WebhookEndpoint>("PATCH", `/webhook-endpoints/${endpoint.id}`, { event_types: [], disabled: true });
    assert.equal(patched.status, 200);
    assert.deepEqual([patched.body.event_types, patched.body.disabled, patched.body.url], [[], true, endpoint.url]);

    assert.equal((await me.org("DELETE", `/webhook-endpoints/${endpoint.id}`)).status, 204);
    assert.equal((await me.org("GET", `/webhook-endpoints/${endpoint.id}`)).status, 404);
    assert.equal((await me.org("DELETE", `/webhook-endpoints/${endpoint.id}`)).status, 404);
  });

  test("another organization can neither see nor change an endpoint", async () => {
    const [owner, other] = [await api().login(), await api().login()];
    const created = await owner.org<WebhookEndpointCreated>("POST", "/webhook-endpoints", { url: "https://hooks.example.com/a" });
    const id = created.body.id;
    // Its own org's path with the other org's endpoint id: not found, as if it did not exist.
    for (const [method, path, body] of [
      ["GET", `/webhook-endpoints/${id}`],
      ["PATCH", `/webhook-endpoints/${id}`, { disabled: true }],
      ["POST", `/webhook-endpoints/${id}/rotate-secret`],
      ["GET", `/webhook-endpoints/${id}/deliveries`],
      ["DELETE", `/webhook-endpoints/${id}`],
    ] as const) {
      assert.equal((await other.org(method, path, body)).status, 404, `${method} ${path}`);
    }
    assert.deepEqual((await other.org("GET", "/webhook-endpoints")).body, { items: [] });
    // The owner's org path with the other org's token: refused before anything is read.
    const foreign = await other.call("GET", `/org/${owner.orgId}/webhook-endpoints`);
    assert.equal(foreign.status, 403);
    assert.equal((await owner.org<WebhookEndpoint>("GET", `/webhook-endpoints/${id}`)).body.disabled, false);
  });

  test("in production mode an endpoint on a loopback, private, link-local or metadata address, or over http, is refused", async () => {
    const me = await api().login();
    const refused = {
      "http://hooks.example.com/x": /must use https/,
      "https://127.0.0.1/x": /loopback/,
      "https://localhost:8443/x": /localhost resolves to 127\.0\.0\.1, a loopback address/,
      "https://10.0.0.7/x": /private/,
      "https://intranet.example.com/x": /10\.1\.2\.3, a private address/,
      "https://mixed.example.com/x": /192\.168\.1\.10, a private address/,
      "https://169.254.169.254/latest/meta-data": /linkLocal/,
      "https://metadata.example.com/x": /linkLocal/,
      "https://100.100.100.200/x": /carrierGradeNat/,
      "https://[::1]/x": /loopback/,
      "https://[::ffff:127.0.0.1]/x": /loopback/,
      "https://[fd00:ec2::254]/x": /uniqueLocal/,
      "https://0.0.0.0/x": /unspecified/,
      "https://nowhere.example.com/x": /does not resolve/,
      "https://user:pw@hooks.example.com/x": /user name or password/,
      "ftp://hooks.example.com/x": /must start with https/,
    };
    for (const [url, why] of Object.entries(refused)) {
      const res = await me.org<{ detail: { loc: string[]; msg: string }[] }>("POST", "/webhook-endpoints", { url });
      assert.equal(res.status, 422, url);
      assert.deepEqual(res.body.detail[0]?.loc, ["body", "url"], url);
      assert.match(res.body.detail[0]!.msg, why, url);
    }
    const ok = await me.org<WebhookEndpoint>("POST", "/webhook-endpoints", { url: "https://hooks.example.com/x" });
    assert.equal(ok.status, 200);
    const moved = await me.org("PATCH", `/webhook-endpoints/${ok.body.id}`, { url: "https://127.0.0.2/x" });
    assert.equal(moved.status, 422, "a change of URL is checked too");
    assert.deepEqual((await me.org<WebhookEndpointList>("GET", "/webhook-endpoints")).body.items.length, 1);
  });

  test("in production mode a host re-pointed to a loopback address after creation (DNS rebinding) is not connected to at delivery", async () => {
    const me = await api().login();
    const rx = await startReceiver();
    try {
      rebindTo = "93.184.216.34";
      const port = new URL(rx.url).port;
      const created = await me.org<WebhookEndpointCreated>("POST", "/webhook-endpoints", {
        url: `https://rebind.example.com:${port}/hooks`,
      });
      assert.equal(created.status, 200, "a public address at creation");
      rebindTo = "127.0.0.1"; // where the receiver listens
      await me.org("POST", "/position", { name: "Rebound" });
      const list = await eventually("the first attempt is recorded", async () => {
        const r = await me.org<WebhookDeliveryList>("GET", `/webhook-endpoints/${created.body.id}/deliveries`);
        return r.body.items[0]?.attempts.length ? r.body : undefined;
      });
      const [attempt] = list.items[0]!.attempts;
      assert.equal(attempt!.ok, false);
      assert.equal(attempt!.status_code, null);
      assert.match(attempt!.error ?? "", /refused.*loopback/);
      assert.equal(list.items[0]!.status, "pending", "retried on the schedule");
      assert.deepEqual(rx.deliveries, [], "nothing reached the loopback address");
    } finally {
      rebindTo = "93.184.216.34";
      await rx.close();
    }
  });

  test("bad input is a 422 naming the field", async () => {
    const me = await api().login();
    for (const body of [
      { url: "https://hooks.example.com/x", event_types: ["candidate.deleted"] },
      { url: "https://hooks.example.com/x", event_types: ["candidate.created", "candidate.created"] },
      { url: "https://hooks.example.com/x", secret: "whsec_mine" },
      { url: "" },
      {},
    ]) {
      const res = await me.org("POST", "/webhook-endpoints", body);
      assert.equal(res.status, 422, JSON.stringify(body));
    }
    assert.equal((await me.org("GET", "/webhook-endpoints/not-a-uuid")).status, 422);
  });

  test("rotating the secret answers a new one and how long the old one keeps signing", async () => {
    const me = await api().login();
    const created = await me.org<WebhookEndpointCreated>("POST", "/webhook-endpoints", { url: "https://hooks.example.com/r" });
    const rotated = await me.org<{ secret: string; previous_secret_expires_at: string }>(
      "POST",
      `/webhook-endpoints/${created.body.id}/rotate-secret`,
    );
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.secret, created.body.secret);
    const overlap = Date.parse(rotated.body.previous_secret_expires_at) - Date.now();
    assert.ok(overlap > 3500_000 && overlap <= 3600_000, `overlap ${overlap} ms`);
    const shown = await me.org<WebhookEndpoint>("GET", `/webhook-endpoints/${created.body.id}`);
    assert.equal(shown.body.previous_secret_expires_at, rotated.body.previous_secret_expires_at);
  });

  test("the event type catalogue lists every type with the JSON schema of its body", async () => {
    const me = await api().login();
    const res = await me.call<EventTypeCatalogue>("GET", "/webhook-event-types");
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.items.map((i) => i.type),
      EVENT_TYPES,
    );
    const candidate = res.body.items.find((i) => i.type === "candidate.created")!;
    const schema = candidate.schema as { properties: { type: { const: string }; data: { properties: Record<string, unknown> } } };
    assert.equal(schema.properties.type.const, "candidate.created");
    assert.ok("email" in schema.properties.data.properties);
    assert.equal((await fetch(`${api().apiUrl}/webhook-event-types`)).status, 401);
  });
});
