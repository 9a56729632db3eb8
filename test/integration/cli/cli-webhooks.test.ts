import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import type { WebhookDeliveryList, WebhookEndpoint, WebhookEndpointCreated } from "../../../src/client/index.js";
import { startReceiver, type Receiver } from "../webhooks-out/receiver.js";
import { useDemoCli } from "./cli-harness.js";

const BIN = join(resolve(fileURLToPath(new URL("../../..", import.meta.url))), "bin", "hirebridge.js");

/** `hirebridge webhooks …` against the embedded stack (which delivers to loopback receivers). */
describe("CLI: webhooks", () => {
  const demo = useDemoCli();
  const receivers: Receiver[] = [];
  after(async () => {
    for (const r of receivers) await r.close();
  });

  test("create → list → deliveries → resend → rotate-secret → update → delete", async () => {
    const rx = await startReceiver();
    receivers.push(rx);
    const created = await demo.cli.json<WebhookEndpointCreated>(["webhooks", "create", "--url", rx.url, "--events", "position.created"]);
    assert.match(created.secret, /^whsec_/);
    rx.secrets.push(created.secret);
    const table = await demo.cli.run(["webhooks", "list"]);
    assert.match(table.stdout, new RegExp(`^${created.id}\\s+${rx.url.replace(/\./g, "\\.")}\\s+position\\.created\\s+enabled`, "m"));

    await demo.cli.json(["positions", "create", "--name", "Hooked"]);
    const [delivery] = await rx.waitFor((d) => d.length >= 1);
    assert.deepEqual([delivery!.type, delivery!.verifiedWith], ["position.created", [0]]);
    const list = await demo.cli.json<WebhookDeliveryList>(["webhooks", "deliveries", created.id]);
    assert.equal(list.items[0]?.message_id, delivery!.id);
    await demo.cli.json(["webhooks", "resend", created.id, delivery!.id]);
    assert.equal((await rx.waitFor((d) => d.length >= 2))[1]!.id, delivery!.id);

    const rotated = await demo.cli.json<{ secret: string }>(["webhooks", "rotate-secret", created.id]);
    assert.notEqual(rotated.secret, created.secret);
    const disabled = await demo.cli.json<WebhookEndpoint>(["webhooks", "update", created.id, "--disable"]);
    assert.equal(disabled.disabled, true);
    const unknown = await demo.cli.run(["webhooks", "create", "--url", rx.url, "--events", "candidate.deleted"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown event type candidate\.deleted/);
    assert.equal((await demo.cli.run(["webhooks", "delete", created.id])).code, 0);
    assert.equal((await demo.cli.run(["webhooks", "show", created.id])).code, 4);
  });

  /** `hirebridge webhooks listen` started by `node` (the bin itself), resolved once it printed its secret. */
  async function startListen(node: string, forwardTo: string) {
    const child = spawn(node, [BIN, "webhooks", "listen", "--forward-to", forwardTo, "--events", "position.created"], {
      env: {
        ...process.env,
        HOME: demo.cli.home,
        XDG_CONFIG_HOME: join(demo.cli.home, "config"),
        HIREBRIDGE_AUTH_URL: demo.env.authUrl,
        HIREBRIDGE_API_URL: demo.env.apiUrl,
        HIREBRIDGE_PROXY_URL: demo.env.proxyUrl,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out = { stdout: "", stderr: "" };
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out.stdout += d));
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    const secret = await new Promise<string>((resolvePromise, reject) => {
      child.stderr.setEncoding("utf8").on("data", (d: string) => {
        out.stderr += d;
        const found = /verify them: (whsec_\S+)/.exec(out.stderr);
        if (found) resolvePromise(found[1]!);
      });
      void exited.then(() => reject(new Error(`listen exited: ${out.stderr}`)));
    });
    return { child, out, exited, secret };
  }

  const temporaryEndpoints = async () =>
    (await demo.cli.json<WebhookEndpoint[]>(["webhooks", "list"])).filter((e) => e.description.includes("listen"));

  test("listen forwards each verified event to a local server and deletes its endpoint on Ctrl-C", async () => {
    const local = await startReceiver(); // the developer's server at --forward-to
    receivers.push(local);
    const { child, out, exited, secret } = await startListen(process.execPath, local.url);
    local.secrets.push(secret);

    await demo.cli.json(["positions", "create", "--name", "Forwarded"]);
    const [forwarded] = await local.waitFor((d) => d.length >= 1);
    assert.deepEqual([forwarded!.type, forwarded!.verifiedWith, forwarded!.data["name"]], ["position.created", [0], "Forwarded"]);
    await new Promise<void>((r) => (out.stdout.includes("→ 200") ? r() : child.stdout.once("data", () => r())));
    assert.match(out.stdout, new RegExp(`position\\.created\\s+${forwarded!.id}  → 200`));

    child.kill("SIGINT");
    assert.equal(await exited, 0, out.stderr);
    assert.deepEqual(await temporaryEndpoints(), [], "the temporary endpoint is gone");
  });

  test("listen started by an older Node (the bin hands over to the pinned one) deletes its endpoint on SIGHUP to the bin", async () => {
    const local = await startReceiver();
    receivers.push(local);
    // The machine's Node 20 runs the bin, which starts the pinned Node 24 (bin/runtime.js); a closed
    // terminal or a supervisor sends SIGHUP to the process it knows: the bin.
    const older = ["/usr/bin/node", "/usr/local/bin/node"].find((p) => existsSync(p)) ?? process.execPath;
    const { child, out, exited } = await startListen(older, local.url);
    assert.equal((await temporaryEndpoints()).length, 1, "the temporary endpoint exists while it listens");
    child.kill("SIGHUP");
    assert.equal(await exited, 0, out.stderr);
    assert.match(out.stderr, /the temporary endpoint is deleted/);
    assert.deepEqual(await temporaryEndpoints(), [], "the temporary endpoint is gone");
  });
});
