/**
 * deploy/nginx/nginx.conf run for real (the machine's nginx) in front of two recruiting API
 * instances on one database, with only the addresses changed from the compose network to loopback:
 * requests spread over both, request ids pass through, an instance that stops takes no request
 * down with it, and an oversized body gets the service's own 413. Skipped where nginx is missing.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { buildRecruitingApp } from "../../../src/services/recruiting/app.js";
import type { App } from "../../../src/shared/http/create-app.js";
import { startTestIdentity, type TestIdentity } from "../../helpers/auth.js";
import { silentLogger, testConfig } from "../../helpers/config.js";
import { freshDatabase } from "../../helpers/db.js";
import { freePort } from "../../helpers/ports.js";
import { eventually } from "../../helpers/stack.js";

const hasNginx = !spawnSync("nginx", ["-v"]).error;

/** The compose config with loopback addresses: every replacement must apply, or the config changed shape. */
function loopbackConfig(dir: string, ports: { api: number[]; proxyListen: number; apiListen: number }): string {
  let conf = readFileSync(new URL("../../../deploy/nginx/nginx.conf", import.meta.url), "utf8");
  const swap = (from: string | RegExp, to: string) => {
    const next = conf.replace(from, to);
    assert.notEqual(next, conf, `nginx.conf has ${String(from)}`);
    conf = next;
  };
  swap("server api-1:8001", `server 127.0.0.1:${ports.api[0]}`);
  swap("server api-2:8001", `server 127.0.0.1:${ports.api[1]}`);
  // The proxy pool is not exercised here; it points at the same two instances so nginx starts.
  swap("server proxy-1:8000", `server 127.0.0.1:${ports.api[0]}`);
  swap("server proxy-2:8000", `server 127.0.0.1:${ports.api[1]}`);
  swap("listen 8000;", `listen 127.0.0.1:${ports.proxyListen};`);
  swap("listen 8001;", `listen 127.0.0.1:${ports.apiListen};`);
  swap("pid /tmp/nginx.pid;", `pid ${dir}/nginx.pid;`);
  swap(/\/tmp\/nginx-/g, `${dir}/nginx-`);
  // Node's stdio pipes are sockets, which /dev/stdout cannot be opened on: log to files instead.
  swap("error_log /dev/stderr warn;", `error_log ${dir}/error.log warn;`);
  swap("access_log /dev/stdout hirebridge;", `access_log ${dir}/access.log hirebridge;`);
  return conf;
}

describe("the compose load balancer (nginx) in front of two API instances", { skip: hasNginx ? false : "nginx is not installed" }, () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let identity: TestIdentity;
  let nginx: ChildProcess;
  let dir: string;
  let lb: string;
  let token: string;
  const instances: { app: App; seen: string[] }[] = [];
  const accessLog = () => readFileSync(join(dir, "access.log"), "utf8").split("\n").filter(Boolean);

  before(async () => {
    database = await freshDatabase("pglite");
    identity = await startTestIdentity(database);
    token = (await identity.login()).accessToken;
    for (let i = 0; i < 2; i++) {
      const app = await buildRecruitingApp({ config: testConfig(), database, logger: silentLogger(), verify: identity.verify });
      const seen: string[] = [];
      app.addHook("onRequest", async (request) => void seen.push(request.id));
      await app.listen({ host: "127.0.0.1", port: 0 });
      instances.push({ app, seen });
    }
    dir = mkdtempSync(join(tmpdir(), "hirebridge-lb-"));
    chmodSync(dir, 0o755); // nginx's workers (an unprivileged user when run as root) buffer large bodies in it
    const [proxyListen, apiListen] = [await freePort(), await freePort()];
    const api = instances.map((x) => (x.app.server.address() as AddressInfo).port);
    writeFileSync(join(dir, "nginx.conf"), loopbackConfig(dir, { api, proxyListen, apiListen }));
    nginx = spawn("nginx", ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], { stdio: "ignore" });
    lb = `http://127.0.0.1:${apiListen}`;
    await eventually("nginx listening", async () => ((await fetch(`${lb}/healthz`).catch(() => null))?.ok ? true : undefined), 10_000);
  });
  after(async () => {
    if (nginx && nginx.exitCode === null) {
      nginx.kill("SIGTERM"); // fast shutdown: the tests are done with it
      await once(nginx, "exit");
    }
    for (const x of instances) await x.app.close();
    await identity?.close();
    await database?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const orgId = (headers: Record<string, string> = {}) =>
    fetch(`${lb}/api/v1/org_id`, { headers: { authorization: `Bearer ${token}`, ...headers } });

  test("answers /healthz and spreads requests over both instances", async () => {
    const before = instances.map((x) => x.seen.length);
    for (let i = 0; i < 20; i++) assert.equal((await orgId()).status, 200);
    const served = instances.map((x, i) => x.seen.length - before[i]!);
    assert.equal(served[0]! + served[1]!, 20);
    for (const n of served) assert.ok(n >= 5, `each instance served a share: ${served.join(" / ")}`);
  });

  test("the caller's X-Request-Id reaches the instance and comes back; without one, nginx's own does", async () => {
    const given = await orgId({ "x-request-id": "lb-test-0001" });
    assert.equal(given.headers.get("x-request-id"), "lb-test-0001");
    assert.ok(instances.some((x) => x.seen.includes("lb-test-0001")));
    const minted = (await orgId()).headers.get("x-request-id") ?? "";
    assert.match(minted, /^[0-9a-f]{32}$/);
    assert.ok(
      instances.some((x) => x.seen.includes(minted)),
      "the service adopted the balancer's id",
    );
    const logged = await eventually("the access log line", async () => accessLog().find((l) => l.includes(minted)), 5000);
    const line = JSON.parse(logged) as Record<string, unknown>;
    assert.equal(line["request_id"], minted);
    assert.equal(line["status"], 200);
    assert.equal(line["uri"], "/api/v1/org_id");
  });

  test("a body above the services' limit gets the service's own 413", async () => {
    const { org_id } = (await (await orgId()).json()) as { org_id: string };
    const res = await fetch(`${lb}/api/v1/org/${org_id}/position`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) }),
    });
    assert.equal(res.status, 413, await res.clone().text());
    assert.match(((await res.json()) as { detail: string }).detail, /too large/i);
  });

  test("when one instance stops, every request (reads and writes) is answered by the other", async () => {
    await instances[0]!.app.close();
    const before = instances[1]!.seen.length;
    const org = (await orgId().then((r) => r.json())) as { org_id: string };
    for (let i = 0; i < 10; i++) {
      assert.equal((await orgId()).status, 200);
      const created = await fetch(`${lb}/api/v1/org/${org.org_id}/position`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `after stop ${i}` }),
      });
      assert.equal(created.status, 200, await created.clone().text());
    }
    assert.equal(instances[1]!.seen.length - before, 21);
    const list = (await (
      await fetch(`${lb}/api/v1/org/${org.org_id}/position`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { items: unknown[] };
    assert.equal(list.items.length, 10, "each write happened exactly once");
  });
});
