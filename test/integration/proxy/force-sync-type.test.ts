import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { describeEachDatabase } from "../../helpers/db.js";
import { startProxyHarness, upstreamCalls, type ProxyHarness } from "./proxy-harness.js";

describeEachDatabase("force-sync sends the query's type upstream", (db) => {
  let h: ProxyHarness;
  before(async () => {
    h = await startProxyHarness(db());
  });
  after(() => h.close());

  for (const [label, payload, headers] of [
    ["without a body", undefined, {}],
    ["without a body, Content-Length 0", undefined, { "content-length": "0" }],
    ["with an empty JSON object", "{}", { "content-type": "application/json" }],
    ["with a JSON null", "null", { "content-type": "application/json" }],
    ["with a body naming another type", '{"type":"DELTA"}', { "content-type": "application/json" }],
  ] as const) {
    test(`type=FULL ${label} reaches the upstream as FULL`, async () => {
      await new Promise((r) => setTimeout(r, 150)); // the previous sync has finished
      h.seen.length = 0;
      const res = await h.call("POST", `/api/v1/general/force-sync?integration_id=${h.integration}&type=FULL`, {
        payload,
        headers: { ...headers },
      });
      assert.equal(res.statusCode, 200, res.body);
      const calls = upstreamCalls(h.seen).filter((r) => r.url.startsWith("/v1/force-sync"));
      assert.equal(calls.length, 1);
      const body = JSON.parse(res.body) as { data: { type: string } };
      assert.equal(body.data.type, "FULL");
    });
  }
});
