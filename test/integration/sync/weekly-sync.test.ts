import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import type { IntegrationSyncs } from "../../../src/contracts/proxy/webhooks.js";
import { listSyncableIntegrations, recordIntegration } from "../../../src/services/proxy/integrations/integrations.repository.js";
import { QUEUES } from "../../../src/shared/jobs/queue.js";
import { describeEachDatabase } from "../../helpers/db.js";
import { call, eventually, startTestStack, type TestStack } from "../../helpers/stack.js";

describeEachDatabase("weekly full sync", (getDb) => {
  let stack: TestStack;
  let token: string;
  let integrationId: string;
  before(async () => {
    // Spread 0: every planned weekly sync is due at once (the spread itself: test/unit/sync/weekly-spread.test.ts).
    stack = await startTestStack(getDb(), {
      sandbox: { applications: 20, webhookUrl: undefined as never },
      config: { SYNC_WEEKLY_SPREAD_SECONDS: 0 },
    });
    integrationId = stack.sandbox.demoIntegrationId;
    token = (await stack.login(stack.sandbox.demoOrgId)).accessToken;
    // The demo integration becomes the demo org's when first named by it (adopted from origin_id).
    assert.equal((await call(`${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}`, { token })).status, 200);
  });
  after(async () => {
    await stack.close();
  });

  test("lists the live ATS integrations only: not deleted, not paused, not of another category", async () => {
    const orgId = randomUUID();
    const db = getDb().db;
    await recordIntegration(db, { id: "weekly-paused", orgId, tool: "greenhouse", category: "ATS", status: "INACTIVE" });
    await recordIntegration(db, { id: "weekly-hris", orgId, tool: "personio", category: "HRIS", status: "ACTIVE" });
    await recordIntegration(db, { id: "weekly-unknown-state", orgId, tool: "lever" });
    await getDb().query("update integrations set deleted_at = now() where id = 'weekly-unknown-state'");
    await recordIntegration(db, { id: "weekly-active", orgId, tool: "lever", category: "ATS", status: "ACTIVE" });
    const ids = (await listSyncableIntegrations(db)).map((r) => r.id).sort();
    assert.deepEqual(ids, [integrationId, "weekly-active"].sort());
  });

  test("the weekly job queues a full sync of jobs and applications for each of them", async () => {
    await stack.queue.send(QUEUES.weeklySync, {});
    const runs = await eventually("the weekly runs", async () => {
      const { body } = await call<IntegrationSyncs>(`${stack.proxyUrl}/integrations/${encodeURIComponent(integrationId)}/syncs`, { token });
      const weekly = body.items.filter((r) => r.trigger === "weekly");
      return weekly.length >= 2 ? weekly : undefined;
    });
    assert.deepEqual(runs.map((r) => `${r.model}:${r.type}`).sort(), ["applications:FULL", "jobs:FULL"]);
  });
});
