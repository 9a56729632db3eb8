import assert from "node:assert/strict";
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { Client } from "undici";
import { startProxyHarness, upstreamGet, type ProxyHarness } from "./proxy-harness.js";

/**
 * The hot path over real sockets (inject has none): a 2xx answer is written straight into the
 * client's connection, so what the client gets must be the upstream's bytes with the proxy's own
 * headers, and the keep-alive connection must survive it for the next request, whoever's token
 * that one carries.
 */
describe("proxy: streamed answers over a keep-alive connection", () => {
  let h: ProxyHarness;
  let client: Client;
  let connections = 0;
  before(async () => {
    h = await startProxyHarness("postgres");
    h.app.server.on("connection", () => connections++);
    await h.app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = h.app.server.address() as AddressInfo;
    client = new Client(`http://127.0.0.1:${port}`, { pipelining: 1 });
  });
  after(async () => {
    await client?.close();
    await h?.close();
  });

  const get = async (path: string, token: string, requestId?: string) => {
    const res = await client.request({
      method: "GET",
      path,
      headers: { authorization: `Bearer ${token}`, ...(requestId ? { "x-request-id": requestId } : {}) },
    });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  };

  test("the upstream's body arrives byte for byte with the proxy's headers, and the connection is kept across callers", async () => {
    const jobs = `/api/v1/ats/jobs?integration_id=${h.integration}&page_size=7`;
    const expected = (await upstreamGet(h, "/ats/jobs?page_size=7")).body;
    const before = connections;

    for (let i = 0; i < 3; i++) {
      const res = await get(jobs, h.demo.accessToken, `stream-${i}`);
      assert.equal(res.status, 200);
      assert.equal(res.body, expected);
      assert.equal(res.headers["content-length"], String(Buffer.byteLength(expected)));
      assert.match(String(res.headers["content-type"]), /^application\/json/);
      assert.equal(res.headers["x-request-id"], `stream-${i}`);
      assert.equal(res.headers["x-content-type-options"], "nosniff");
      assert.equal(res.headers["access-control-allow-origin"], "*");
      assert.equal(res.headers["authorization"], undefined);
    }
    // Another caller on the same connection is checked anew: another org's token is 404, a
    // tampered one 401, and the first caller's token still works after them.
    assert.equal((await get(jobs, h.other.accessToken)).status, 404);
    assert.equal((await get(jobs, `${h.demo.accessToken.slice(0, -4)}AAAA`)).status, 401);
    const again = await get(jobs, h.demo.accessToken);
    assert.equal(again.status, 200);
    assert.equal(again.body, expected);
    assert.equal(connections - before, 1, "every request used the one keep-alive connection");
  });

  test("an upstream error on the hot path answers through the normal reply, on the same connection", async () => {
    const before = connections;
    const unknown = await get(`/api/v1/ats/jobs?integration_id=${h.integration}&cursor=not-a-cursor`, h.demo.accessToken);
    assert.equal(unknown.status, 400);
    assert.equal(JSON.parse(unknown.body).status, "error");
    const ok = await get(`/api/v1/ats/jobs?integration_id=${h.integration}&page_size=1`, h.demo.accessToken);
    assert.equal(ok.status, 200);
    assert.equal(connections - before, 0);
  });

  test("an upstream that dies mid-body cuts the client's answer short (never a complete-looking one), and the proxy carries on", async () => {
    // A fault the sandbox cannot cause: headers and part of the body, then the connection is gone.
    let calls = 0;
    const dying = createServer((_req, res) => {
      calls++;
      res.writeHead(200, { "content-type": "application/json", "content-length": "5000" });
      res.write('{"status":"success","data":{"results":[');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await new Promise<void>((resolve) => dying.listen(0, "127.0.0.1", resolve));
    const app = await h.extraApp({ UPSTREAM_BASE_URL: `http://127.0.0.1:${(dying.address() as AddressInfo).port}/v1` });
    await app.listen({ host: "127.0.0.1", port: 0 });
    const other = new Client(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
    try {
      const res = await other.request({
        method: "GET",
        path: `/api/v1/ats/jobs?integration_id=${h.integration}`,
        headers: { authorization: `Bearer ${h.demo.accessToken}` },
      });
      assert.equal(res.statusCode, 200);
      await assert.rejects(res.body.text());
      const after = await get(`/api/v1/ats/jobs?integration_id=${h.integration}&page_size=1`, h.demo.accessToken);
      assert.equal(after.status, 200);
      await new Promise((r) => setTimeout(r, 300)); // longer than the harness's retry backoff
      assert.equal(calls, 1, "an answer already under way is not retried");
    } finally {
      await other.close();
      dying.close();
    }
  });

  test("a caller that hangs up while the upstream is still answering costs nothing but that request", async () => {
    await h.sandboxConfig({ latency_ms: 300 });
    try {
      const { port } = h.app.server.address() as AddressInfo;
      const socket = connect(port, "127.0.0.1");
      await new Promise((r) => socket.once("connect", r));
      socket.write(
        `GET /api/v1/ats/jobs?integration_id=${h.integration}&page_size=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.demo.accessToken}\r\n\r\n`,
      );
      await new Promise((r) => setTimeout(r, 50));
      socket.destroy(); // before the upstream's answer (300 ms) arrives
      await new Promise((r) => setTimeout(r, 600)); // the upstream answers into a closed response
    } finally {
      await h.sandboxConfig({ latency_ms: 0 });
    }
    const ok = await get(`/api/v1/ats/jobs?integration_id=${h.integration}&page_size=1`, h.demo.accessToken);
    assert.equal(ok.status, 200);
  });
});
