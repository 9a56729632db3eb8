/** The sandbox as a launcher service: configuration in, banner out, served through the stack. */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startStack } from "../../../src/runtime/stack.js";
import { freePort } from "../../helpers/ports.js";
import { silentLogger, testConfig } from "../../helpers/config.js";

test("`serve sandbox` starts it from the configuration, with the demo integration of DEMO_ORG_ID", async (t) => {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), "hirebridge-sandbox-service-"));
  const config = testConfig({
    DATA_DIR: dataDir,
    SANDBOX_PORT: port,
    SANDBOX_SEED: 5,
    SANDBOX_APPLICATIONS: 30,
    UPSTREAM_API_KEY: "key-from-env",
    DEMO_ORG_ID: "11111111-2222-4333-8444-555555555555",
  });
  const stack = await startStack(config, ["sandbox"], silentLogger());
  // Closed before its data directory goes: the sandbox writes its state once more on close.
  t.after(async () => {
    await stack.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  assert.deepEqual(
    stack.services.map((s) => s.name),
    ["sandbox"],
  );
  assert.equal(stack.database, undefined, "the sandbox keeps no database");

  const { demo_integration_id, integrations } = (await (await fetch(`http://127.0.0.1:${port}/sandbox/integrations`)).json()) as {
    demo_integration_id: string;
    integrations: { id: string; end_user: { origin_id: string }; counts: { applications: number } }[];
  };
  assert.equal(integrations.length, 1);
  assert.equal(integrations[0]!.id, demo_integration_id);
  assert.equal(integrations[0]!.end_user.origin_id, "11111111-2222-4333-8444-555555555555");
  assert.equal(integrations[0]!.counts.applications, 30);

  const banner = (await stack.banner()).join("\n");
  assert.match(banner, new RegExp(`http://127\\.0\\.0\\.1:${port}/v1`));
  assert.ok(banner.includes(demo_integration_id));
  // Labels line up; a secret that is not the public local default shows where it comes from, never its value.
  for (const line of banner.split("\n")) assert.match(line, /^[A-Za-z ]{18} \S/, line);
  assert.match(banner, /^Upstream sandbox {3}http/m);
  assert.match(banner, /API key \(UPSTREAM_API_KEY\)/);
  assert.ok(!banner.includes("key-from-env"));

  const res = await fetch(`http://127.0.0.1:${port}/v1/check-api-key`, { headers: { authorization: "Bearer key-from-env" } });
  assert.equal(res.status, 200);
  // Links point at the configured public origin.
  const link = (await (
    await fetch(`http://127.0.0.1:${port}/v1/connect/create-link`, {
      method: "POST",
      headers: { authorization: "Bearer key-from-env", "content-type": "application/json" },
      body: JSON.stringify({ end_user_email: "a@b.example", end_user_organization_name: "B" }),
    })
  ).json()) as { data: { link: string } };
  assert.ok(link.data.link.startsWith(`http://127.0.0.1:${port}/connect/link/`));
});
