/**
 * The sandbox's ATS page in a real headless Chromium (Debian's `chromium` through playwright-core):
 * a newcomer sees the ATS side without curl: the demo integration's jobs, a job's pipeline by stage,
 * an application with the note Hirebridge wrote, a move to another stage, and an assessment order
 * placed from the page. Any page error, failed request or serious axe-core violation fails it.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { startSandbox, type TestSandbox } from "../helpers/sandbox.js";

const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";
const AXE = join(resolve(import.meta.dirname, "..", ".."), "node_modules", "axe-core", "axe.min.js");
const PACKAGES = [{ id: "pkg-video", type: "VIDEO_INTERVIEW", name: "AI video interview", description: "Structured interview" }];

let sandbox: TestSandbox;
let browser: Browser;
let page: Page;
const problems: string[] = [];

async function api<T>(method: string, path: string, body?: unknown, integrationId?: string): Promise<T> {
  const res = await fetch(`${sandbox.origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${sandbox.apiKey}`,
      ...(integrationId ? { "x-integration-id": integrationId } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
  return (await res.json()) as T;
}

async function accessible(label: string): Promise<void> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(`${await readFile(AXE, "utf8")}\n;void 0`);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (d: unknown, o: unknown) => Promise<{ violations: { id: string; impact: string }[] }> } }
    ).axe;
    return (await axe.run(document, { resultTypes: ["violations"] })).violations.map((v) => ({ id: v.id, impact: v.impact }));
  });
  assert.deepEqual(
    violations.filter((v) => v.impact === "serious" || v.impact === "critical"),
    [],
    `${label}: accessibility violations`,
  );
}

before(async () => {
  sandbox = await startSandbox({ applications: 60 });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("console", (msg) => (msg.type() === "error" ? problems.push(`console: ${msg.text()}`) : undefined));
  page.on("requestfailed", (req) => problems.push(`request failed: ${req.url()}`));
});
after(async () => {
  await browser?.close();
  await sandbox?.close();
});

test("the demo integration's jobs, a job's stages and an application with the note Hirebridge wrote; moving it from the page", async () => {
  const demo = sandbox.demoIntegrationId;
  const { applications } = await api<{ applications: { id: string; job_id: string; current_stage: { id: string } | null }[] }>(
    "GET",
    `/sandbox/integrations/${demo}/applications?limit=1`,
  );
  const app = applications[0]!;
  await api(
    "POST",
    `/v1/ats/applications/${app.id}/notes`,
    { content: "AI interview: score 87 <b>strong</b>", content_type: "PLAIN_TEXT" },
    demo,
  );

  await page.goto(`${sandbox.origin}/sandbox/ats`);
  await page
    .getByRole("link", { name: /Demo Organisation/ })
    .first()
    .click();
  await page.getByRole("heading", { name: "Jobs" }).waitFor();
  await accessible("integration page");
  await page.goto(`${sandbox.origin}/sandbox/ats/${demo}?job=${encodeURIComponent(app.job_id)}`);
  const stages = await page.locator("section.stage h3").allTextContents();
  assert.ok(stages.length >= 2, `the job shows its stages as columns: ${stages.join(", ")}`);
  await accessible("job page");

  await page.goto(`${sandbox.origin}/sandbox/ats/${demo}/applications/${app.id}`);
  assert.match((await page.locator("pre").first().textContent()) ?? "", /AI interview: score 87 <b>strong<\/b>/, "the note, as text");
  const select = page.locator('form[data-action="move"] select');
  const target = await select.evaluate((el) => {
    const s = el as HTMLSelectElement;
    return Array.from(s.options).find((o) => !o.selected)!.value;
  });
  await select.selectOption(target);
  await Promise.all([page.waitForEvent("load"), page.getByRole("button", { name: "Move" }).click()]);
  const moved = await api<{ current_stage: { id: string } | null }>("GET", `/sandbox/integrations/${demo}/applications/${app.id}`);
  assert.equal(moved.current_stage?.id, target, "the application moved in the ATS");
  assert.deepEqual(problems, []);
});

test("an assessment order placed from an assessment integration's page shows there", async () => {
  const created = await api<{ id: string }>("POST", "/sandbox/integrations", { category: "ASSESSMENT", tool: "workday" });
  await api("PUT", "/v1/assessment/packages", { packages: PACKAGES }, created.id);
  await page.goto(`${sandbox.origin}/sandbox/ats/${created.id}`);
  await page.getByRole("heading", { name: "Place an order" }).waitFor();
  await accessible("assessment page");
  await Promise.all([page.waitForEvent("load"), page.getByRole("button", { name: "Place assessment order" }).click()]);
  const { orders } = await api<{ orders: { id: string; package_id: string }[] }>(
    "GET",
    `/sandbox/integrations/${created.id}/assessment-orders`,
  );
  assert.equal(orders.length, 1, "the order was placed");
  assert.equal(orders[0]!.package_id, "pkg-video");
  assert.ok(await page.getByText(orders[0]!.id).isVisible(), "the page lists it");
  assert.deepEqual(problems, []);
});

test("an unknown integration or application answers 404", async () => {
  assert.equal((await fetch(`${sandbox.origin}/sandbox/ats/nope`)).status, 404);
  assert.equal((await fetch(`${sandbox.origin}/sandbox/ats/${sandbox.demoIntegrationId}/applications/nope`)).status, 404);
});
