import assert from "node:assert/strict";
import { spawn } from "node:child_process";
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

  test("listen forwards each verified event to a local server and deletes its endpoint on Ctrl-C", async () => {
    const local = await startReceiver(); // the developer's server at --forward-to
    receivers.push(local);
    const child = spawn(process.execPath, [BIN, "webhooks", "listen", "--forward-to", local.url, "--events", "position.created"], {
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
    let stderr = "";
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    const secret = await new Promise<string>((resolvePromise, reject) => {
      child.stderr.setEncoding("utf8").on("data", (d: string) => {
        stderr += d;
        const found = /verify them: (whsec_\S+)/.exec(stderr);
        if (found) resolvePromise(found[1]!);
      });
      void exited.then(() => reject(new Error(`listen exited: ${stderr}`)));
    });
    local.secrets.push(secret);

    await demo.cli.json(["positions", "create", "--name", "Forwarded"]);
    const [forwarded] = await local.waitFor((d) => d.length >= 1);
    assert.deepEqual([forwarded!.type, forwarded!.verifiedWith, forwarded!.data["name"]], ["position.created", [0], "Forwarded"]);
    await new Promise<void>((r) => (stdout.includes("→ 200") ? r() : child.stdout.once("data", () => r())));
    assert.match(stdout, new RegExp(`position\\.created\\s+${forwarded!.id}  → 200`));

    child.kill("SIGINT");
    assert.equal(await exited, 0, stderr);
    const left = await demo.cli.json<WebhookEndpoint[]>(["webhooks", "list"]);
    assert.deepEqual(
      left.filter((e) => e.description.includes("listen")),
      [],
      "the temporary endpoint is gone",
    );
  });
});
