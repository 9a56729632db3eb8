import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import type { WebhookDelivery, WebhookDeliveryList, WebhookEndpoint, WebhookEndpointCreated } from "../../../src/client/index.js";
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

  test("trigger sends a signed test event; delivery shows its webhook-id, payload and headers; resend-failed; event-types in plain text", async () => {
    const rx = await startReceiver();
    receivers.push(rx);
    const created = await demo.cli.json<WebhookEndpointCreated>(["webhooks", "create", "--url", rx.url, "--events", "position.created"]);
    rx.secrets.push(created.secret);

    const sent = await demo.cli.run(["webhooks", "trigger", "candidate.created", "--endpoint", created.id]);
    assert.equal(sent.code, 0, sent.stderr);
    const id = /^Sent a test candidate\.created event (\S+) to /.exec(sent.stdout)?.[1];
    assert.ok(id, sent.stdout);
    const [got] = (await rx.waitFor((d) => d.some((x) => x.id === id))).filter((x) => x.id === id);
    assert.deepEqual(got!.verifiedWith, [0], "signed with the endpoint's secret (standardwebhooks)");
    assert.equal((JSON.parse(got!.body) as { test?: boolean }).test, true);

    // Its delivery, once its attempt is recorded: the webhook-id, the payload and the headers sent.
    let delivery: WebhookDelivery | undefined;
    for (let i = 0; i < 100 && !delivery?.attempts.length; i++) {
      delivery = await demo.cli.json<WebhookDelivery>(["webhooks", "delivery", created.id, id]);
      if (!delivery.attempts.length) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(delivery!.webhook_id, id);
    assert.deepEqual(delivery!.payload, JSON.parse(got!.body));
    const shown = await demo.cli.run(["webhooks", "delivery", created.id, id]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`^webhook-id: ${id}$`, "m"));
    assert.match(shown.stdout, /^type: +candidate\.created \(test event\)$/m);
    assert.match(shown.stdout, /^ {4}"test": true$/m);
    assert.ok(shown.stdout.includes(`  webhook-signature: ${got!.signature}`), shown.stdout);
    const listed = await demo.cli.run(["webhooks", "deliveries", created.id, "--limit", "1"]);
    assert.match(listed.stdout, /candidate\.created \(test\)/);

    const resent = await demo.cli.json<{ queued: number; since: string }>([
      "webhooks",
      "resend-failed",
      "--endpoint",
      created.id,
      "--since",
      "24h",
    ]);
    assert.equal(resent.queued, 0, "nothing failed");
    assert.ok(Math.abs(Date.parse(resent.since) - (Date.now() - 86_400_000)) < 60_000, "--since 24h is a day ago");
    const human = await demo.cli.run(["webhooks", "resend-failed", "--endpoint", created.id, "--since", "2026-01-01T00:00:00Z"]);
    assert.match(human.stdout, /^Queued 0 failed deliveries since 2026-01-01T00:00:00\.000Z again$/m);
    const bad = await demo.cli.run(["webhooks", "resend-failed", "--endpoint", created.id, "--since", "yesterday"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--since takes a date-time/);
    const unknownType = await demo.cli.run(["webhooks", "trigger", "candidate.exploded", "--endpoint", created.id]);
    assert.equal(unknownType.code, 2);

    // The catalogue's descriptions hold markdown (`code`); the CLI prints them as text.
    const catalogue = await demo.cli.json<{ items: { type: string; description: string }[] }>(["webhooks", "event-types"]);
    assert.ok(
      catalogue.items.some((t) => t.description.includes("`")),
      "some description has markdown to render",
    );
    const types = await demo.cli.run(["webhooks", "event-types"]);
    assert.equal(types.code, 0, types.stderr);
    assert.doesNotMatch(types.stdout, /[`*<>]/, "no markdown or HTML left");
    assert.match(types.stdout, /failed for good \(last_error says why\)/);
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
    const listening = await temporaryEndpoints();
    assert.equal(listening.length, 1, "the temporary endpoint exists while it listens");
    assert.ok(
      listening[0]!.expires_at,
      "it is temporary: it expires by itself if nothing keeps it alive (WEBHOOK_TEMP_ENDPOINT_IDLE_MINUTES)",
    );
    child.kill("SIGHUP");
    assert.equal(await exited, 0, out.stderr);
    assert.match(out.stderr, /the temporary endpoint is deleted/);
    assert.deepEqual(await temporaryEndpoints(), [], "the temporary endpoint is gone");
  });
});
