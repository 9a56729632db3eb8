import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Hirebridge, type PublishPackagesResult, type ReceivedAssessmentOrder } from "../../../src/client/index.js";
import { type AssessmentEnv, assessmentEnv, eventually, placeOrder } from "../client/assessment-env.js";
import { startEmbeddedStack, type EmbeddedStack } from "../client/embedded-stack.js";
import { Cli, oneLineError } from "./cli-harness.js";

/** `hirebridge assessment …` against the embedded stack: packages listed and republished, orders listed. */
describe("CLI: assessment packages and orders", () => {
  let env: EmbeddedStack;
  let cli: Cli;
  let a: AssessmentEnv;
  let orderId: string;
  const narrow = { env: { COLUMNS: "80" } };
  before(async () => {
    env = await startEmbeddedStack();
    cli = await Cli.create(env);
    await cli.login("demo", env.demo.password);
    const hb = new Hirebridge({
      authUrl: env.authUrl,
      apiUrl: env.apiUrl,
      proxyUrl: env.proxyUrl,
      credentials: { username: env.demo.username, password: env.demo.password },
    });
    a = await assessmentEnv(env, hb);
  });
  after(async () => {
    await cli.dispose();
    await env.close();
  });

  const lines = (out: string) => out.trimEnd().split("\n");

  test("packages publish, then list: the template as a package, ids whole at 80 columns", async () => {
    const published = await cli.json<PublishPackagesResult>(["assessment", "packages", "publish", "--integration", a.integrationId]);
    assert.ok(published.packages.some((p) => p.id === a.templateId && p.type === "VIDEO_INTERVIEW"));

    const table = await cli.run(["assessment", "packages", "publish", "-i", a.integrationId], narrow);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, new RegExp(`^${a.templateId}\\s`, "m"));
    assert.match(table.stderr, /package\(s\) published at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);

    const list = await cli.run(["assessment", "packages", "list", "-i", a.integrationId], narrow);
    assert.equal(list.code, 0, list.stderr);
    assert.match(lines(list.stdout)[0]!, /^ID\s+NAME\s+TYPE/);
    const row = lines(list.stdout).find((l) => l.startsWith(a.templateId));
    assert.ok(row, list.stdout);
    assert.match(row, /VIDEO_INTERVIEW/);
    for (const l of lines(list.stdout)) assert.ok(l.length <= 80, `fits 80 columns: ${l}`);
  });

  test("orders list: the orders Hirebridge received, --status filters, --live reads the ATS", async () => {
    orderId = (await placeOrder(env, a, a.templateId)).id;
    const received = await eventually("the order received", async () => {
      const rows = await cli.json<ReceivedAssessmentOrder[]>(["assessment", "orders", "list", "-i", a.integrationId]);
      return rows.find((r) => r.order_id === orderId && r.candidate_id) ?? undefined;
    });
    assert.equal(received.status, "accepted");

    const table = await cli.run(["assessment", "orders", "list", "-i", a.integrationId], narrow);
    assert.equal(table.code, 0, table.stderr);
    assert.match(lines(table.stdout)[0]!, /^ORDER\s+STATUS\s+CANDIDATE\s+PACKAGE/);
    const row = lines(table.stdout).find((l) => l.startsWith(orderId));
    assert.ok(row, table.stdout);
    assert.match(row, new RegExp(`^${orderId}\\s+OPEN\\s+Grace Hopper\\s+Platform interview`));
    for (const l of lines(table.stdout)) assert.ok(l.length <= 80, `fits 80 columns: ${l}`);

    const completed = await cli.json<ReceivedAssessmentOrder[]>([
      "assessment",
      "orders",
      "list",
      "-i",
      a.integrationId,
      "--status",
      "completed,rejected",
    ]);
    assert.equal(
      completed.some((r) => r.order_id === orderId),
      false,
    );
    const open = await cli.json<ReceivedAssessmentOrder[]>(["assessment", "orders", "list", "-i", a.integrationId, "--status", "open"]);
    assert.ok(open.some((r) => r.order_id === orderId));

    const live = await cli.run(["assessment", "orders", "list", "-i", a.integrationId, "--live", "--status", "OPEN"], narrow);
    assert.equal(live.code, 0, live.stderr);
    assert.match(lines(live.stdout)[0]!, /^ID\s+STATUS\s+CANDIDATE/);
    const liveRow = lines(live.stdout).find((l) => l.startsWith(orderId));
    assert.ok(liveRow, live.stdout);
    assert.match(liveRow, new RegExp(`^${orderId}\\s+OPEN\\s+Grace Hopper`));
    const liveJson = await cli.json<{ id: string; package_id: string }[]>([
      "assessment",
      "orders",
      "list",
      "-i",
      a.integrationId,
      "--live",
    ]);
    assert.equal(liveJson.find((o) => o.id === orderId)?.package_id, a.templateId, "--json keeps the package");
    for (const l of lines(live.stdout)) assert.ok(l.length <= 80, `fits 80 columns: ${l}`);
  });

  test("usage and errors: a bad --status is exit 2, no integration exit 2, an unknown one exit 4", async () => {
    const bad = await cli.run(["assessment", "orders", "list", "-i", a.integrationId, "--status", "done"]);
    assert.equal(bad.code, 2);
    assert.match(oneLineError(bad), /--status takes OPEN, COMPLETED, CANCELLED, REJECTED/);
    const none = await cli.run(["assessment", "packages", "list"]);
    assert.equal(none.code, 2);
    oneLineError(none);
    const unknown = await cli.run(["assessment", "packages", "publish", "-i", "workday:doesNotExist"]);
    assert.equal(unknown.code, 4);
    oneLineError(unknown);
  });
});
