/**
 * deploy/healthcheck.mjs is the image's HEALTHCHECK and every compose health check of ours: it must
 * find the services of the container's command, use the ports the services use, and pass only when
 * /healthz answers 200 (or, with --ready, /readyz).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { SERVICE_ORDER } from "../../../src/runtime/stack.js";
import { ConfigSchema } from "../../../src/runtime/config.js";
import { freePort } from "../../helpers/ports.js";
import { startSandbox, type TestSandbox } from "../../helpers/sandbox.js";

const SCRIPT = fileURLToPath(new URL("../../../deploy/healthcheck.mjs", import.meta.url));
type HealthcheckModule = { SERVICE_PORTS: Record<string, [string, number]>; servicesOf(argv: string[]): string[] };
const load = async () => (await import(new URL(`file://${SCRIPT}`).href)) as HealthcheckModule;

/** Runs the script as the container runtime does (async: the services under test share this event loop). */
function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [SCRIPT, ...args],
      { env: { PATH: process.env["PATH"] ?? "", ...env }, timeout: 10_000 },
      (_err, _out, stderr) => resolve({ code: child.exitCode, stderr }),
    );
  });
}

describe("deploy/healthcheck.mjs", () => {
  let sandbox: TestSandbox;
  before(async () => {
    sandbox = await startSandbox();
  });
  after(() => sandbox?.close());

  test("knows every service the CLI serves, on the ConfigSchema's port variables and defaults", async () => {
    const { SERVICE_PORTS } = await load();
    assert.deepEqual(Object.keys(SERVICE_PORTS).sort(), [...SERVICE_ORDER].sort());
    for (const [service, [variable, port]] of Object.entries(SERVICE_PORTS)) {
      const schema = (ConfigSchema.properties as Record<string, { default?: unknown }>)[variable];
      assert.ok(schema, `${service}: ${variable} is a ConfigSchema key`);
      assert.equal(port, schema.default, `${service}: ${variable} default`);
    }
  });

  test("reads the services from the container's command line", async () => {
    const { servicesOf } = await load();
    assert.deepEqual(servicesOf(["node", "--import", "tsx", "src/cli/main.ts", "serve", "api"]), ["api"]);
    assert.deepEqual(servicesOf(["node", "--max-semi-space-size=8", "dist/cli/main.js", "serve", "api"]), ["api"]);
    assert.deepEqual(servicesOf(["/sbin/docker-init", "--", "node", "--import", "tsx", "src/cli/main.ts", "serve", "token", "proxy"]), [
      "token",
      "proxy",
    ]);
    assert.deepEqual(servicesOf(["node", "src/cli/main.ts", "serve"]).sort(), [...SERVICE_ORDER].sort());
    assert.deepEqual(servicesOf(["node", "src/cli/main.ts", "serve", "all"]).sort(), [...SERVICE_ORDER].sort());
  });

  test("passes while /healthz answers 200 and fails when the service is down or the port is wrong", async () => {
    const port = String(new URL(sandbox.origin).port);
    assert.deepEqual(await run(["sandbox"], { SANDBOX_PORT: port, HOST: "0.0.0.0" }), { code: 0, stderr: "" });
    const closed = String(await freePort());
    const down = await run(["sandbox"], { SANDBOX_PORT: closed, HOST: "127.0.0.1" });
    assert.equal(down.code, 1);
    assert.match(down.stderr, new RegExp(`sandbox: http://127\\.0\\.0\\.1:${closed}/healthz failed`));
    // Two services named: both must be healthy.
    const both = await run(["sandbox", "api"], { SANDBOX_PORT: port, API_PORT: closed, HOST: "127.0.0.1" });
    assert.equal(both.code, 1);
    assert.match(both.stderr, /^api: /m);
  });

  test("--ready asks /readyz instead (readiness; the compose file's checks)", async () => {
    const port = String(new URL(sandbox.origin).port);
    assert.deepEqual(await run(["--ready", "sandbox"], { SANDBOX_PORT: port, HOST: "127.0.0.1" }), { code: 0, stderr: "" });
    const closed = String(await freePort());
    const down = await run(["--ready", "sandbox"], { SANDBOX_PORT: closed, HOST: "127.0.0.1" });
    assert.equal(down.code, 1);
    assert.match(down.stderr, new RegExp(`sandbox: http://127\\.0\\.0\\.1:${closed}/readyz failed`));
  });
});
