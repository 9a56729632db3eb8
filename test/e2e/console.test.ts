/**
 * The operator console end to end, in a real headless Chromium (Debian's `chromium`, driven by
 * playwright-core; nothing is downloaded) against the stack started exactly as `npm start` starts
 * it (the console built by prestart), on free ports and a temporary DATA_DIR. A screenshot per step
 * goes to test-results/console/ (git-ignored). Any error in the page's console, any failed request
 * the test did not cause, and any axe-core violation at the serious or critical level fails it.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { Hirebridge } from "../../src/client/index.js";
import { extraPort, pickPorts, type Ports, stackEnv } from "./console-harness.js";

const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";
const ROOT = resolve(import.meta.dirname, "..", "..");
const SHOTS = join(ROOT, "test-results", "console");
const AXE = join(ROOT, "node_modules", "axe-core", "axe.min.js");

let ports: Ports;
let dataDir: string;
let server: ChildProcess | undefined;
let browser: Browser | undefined;
let page: Page;
const problems: string[] = [];
let shots = 0;

const origin = (port: number) => `http://127.0.0.1:${port}`;

/** `npm start` with the run contract's variables pointed at free ports; resolves once it printed its banner. */
async function startLikeNpmStart(): Promise<string> {
  const env = stackEnv(ports, dataDir);
  server = spawn("npm", ["start", "--silent"], { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  server.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  server.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  // tsc, the console build and the stack's first start (migrations on PGlite): minutes on a loaded machine.
  const deadline = Date.now() + 200_000;
  while (!out.includes("Hirebridge is running.")) {
    if (server.exitCode !== null) throw new Error(`npm start exited ${server.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`npm start did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return out;
}

async function shot(name: string, p: Page = page): Promise<void> {
  shots++;
  await p.screenshot({ path: join(SHOTS, `${String(shots).padStart(2, "0")}-${name}.png`), fullPage: true });
}

/** axe-core on the page (its own document; the upstream's connect page in a frame is not ours to judge). */
async function accessible(label: string, p: Page = page): Promise<void> {
  // Evaluated through the DevTools protocol: the page's CSP (rightly) refuses an injected script tag.
  if (!(await p.evaluate(() => "axe" in window))) await p.evaluate(`${await readFile(AXE, "utf8")}\n;void 0`);
  const violations = await p.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: unknown,
            opts: unknown,
          ) => Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: unknown }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { iframes: false, resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => JSON.stringify(n.target)).slice(0, 3),
    }));
  });
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(serious, [], `${label}: accessibility violations`);
}

function watch(p: Page): void {
  p.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console error on ${p.url()}: ${msg.text()}`);
  });
  p.on("pageerror", (err) => problems.push(`page error on ${p.url()}: ${err.message}`));
  p.on("requestfailed", (req) => {
    // Navigating away aborts what the old page still had in flight (its polling): not a failure.
    if (req.failure()?.errorText === "net::ERR_ABORTED") return;
    problems.push(`request failed: ${req.method()} ${req.url()} ${req.failure()?.errorText}`);
  });
  p.on("response", (res) => {
    if (res.status() >= 400) problems.push(`${res.status()} from ${res.request().method()} ${res.url()}`);
  });
}

before(
  async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
    await rm(SHOTS, { recursive: true, force: true });
    await mkdir(SHOTS, { recursive: true });
    dataDir = await mkdtemp(join(tmpdir(), "hirebridge-console-e2e-"));
    ports = await pickPorts(); // E2E_PORT_BASE pins them (console-harness.ts), free ones otherwise
    const banner = await startLikeNpmStart();
    assert.match(banner, new RegExp(`Operator console:\\s+${origin(ports.console)}/`), "npm start prints the console's URL");
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
      ],
    });
    // One browser context (one cookie jar) for the whole walk: later steps open more tabs in it.
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watch(page);
  },
  { timeout: 240_000 },
);

after(async () => {
  await browser?.close();
  if (server?.pid) {
    try {
      process.kill(-server.pid, "SIGTERM"); // the process group npm start made (npm and the stack)
    } catch {
      // already gone
    }
    await new Promise((r) => (server!.exitCode !== null ? r(null) : server!.once("exit", r)));
  }
  await rm(dataDir, { recursive: true, force: true });
});

/**
 * The walk through the console, one `step` after another (node:test runs a file's tests in order):
 * each step reads and leaves what the next needs in `run`, and once a step failed the later ones
 * are skipped rather than failing for its reason. Add steps where they belong in the walk.
 */
type Target = { positionId: string; candidateId: string; candidateName: string; applicationId: string; name: string };
const run: {
  hb?: Hirebridge;
  integrationId?: string;
  target?: Target;
  template?: { id: string; name: string };
  order?: { integrationId: string; candidateName: string; orderId: string };
} = {};
let failedStep: string | undefined;

function step(name: string, body: () => Promise<void>, timeout = 120_000): void {
  test(name, { timeout }, async (t) => {
    if (failedStep) return t.skip(`after the failed step "${failedStep}"`);
    try {
      await body();
    } catch (err) {
      failedStep = name;
      throw err;
    }
  });
}

const consoleUrl = () => origin(ports.console);
/** The organisation typed in the connect form: the new integration's name everywhere. */
const ORG = "Acme Recruiting";
const authUrl = () => `${origin(ports.auth)}/realms/hirebridge`;
const need = <T>(value: T | undefined, what: string): T => {
  if (value === undefined) throw new Error(`an earlier step did not leave ${what}`);
  return value;
};

/**
 * Runs `action` and answers how many times the token service's login page was shown meanwhile on
 * `p` (its authorization endpoint answering 200 with the form, not a redirect).
 */
async function loginPagesDuring(p: Page, action: () => Promise<void>): Promise<number> {
  let shown = 0;
  const count = (res: import("playwright-core").Response) => {
    if (res.url().startsWith(`${authUrl()}/protocol/openid-connect/auth?`) && res.status() === 200) shown++;
  };
  p.on("response", count);
  try {
    await action();
  } finally {
    p.off("response", count);
  }
  return shown;
}

step("sign in with the authorization code flow: the token service's own login page", async () => {
  // The test's own API client (what the interview runner would do): the demo user through the password grant.
  run.hb = new Hirebridge({
    authUrl: authUrl(),
    apiUrl: `${origin(ports.api)}/api/v1`,
    proxyUrl: `${origin(ports.proxy)}/api/v1`,
    credentials: { username: "demo", password: "demo-password" },
  });
  // The first visit signs in silently (prompt=none), finds no SSO session and offers Sign in.
  await page.goto(consoleUrl());
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  await accessible("signed out");
  await shot("signed-out");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${authUrl()}/protocol/openid-connect/auth?**`);
  assert.match(page.url(), /code_challenge_method=S256/);
  await accessible("login page");
  await page.getByLabel("Username or email").fill("demo");
  await page.getByLabel("Password").fill("demo-password");
  await shot("login-page");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${consoleUrl()}/`);
  await page.getByRole("heading", { name: "Integrations" }).waitFor();
  await page.getByText("demo", { exact: true }).waitFor();
  await accessible("integrations");
  await shot("signed-in");
});

step("connect a new ATS through the sandbox's connection page, embedded in the console", async () => {
  await page.getByRole("button", { name: "Connect an ATS" }).click();
  await page.getByLabel("Organisation name").fill("Acme Recruiting");
  await page.getByLabel("Email of the person connecting").fill("it@acme.example");
  await page.getByRole("button", { name: "Open the connection flow" }).click();
  const flow = page.frameLocator('iframe[title="ATS connection flow"]');
  await flow.getByRole("heading", { name: "Connect your ATS system" }).waitFor();
  await accessible("connect flow open");
  await shot("connect-flow");
  await flow.getByLabel("Lever").check();
  await flow.getByRole("button", { name: "Connect" }).click();
  await page.waitForURL(/\/integrations\/lever%3A/);
  run.integrationId = decodeURIComponent(page.url().split("/integrations/")[1]!);
  // Named by the organisation typed in the connect form, not by its id.
  await page.getByRole("heading", { name: ORG, level: 1 }).waitFor();
});

step(
  "its first sync (started by integration-created) finishes: jobs, then applications",
  async () => {
    const firstRun = (model: string) =>
      page.locator(`tr[data-model="${model}"][data-run-state="succeeded"]`, { hasText: "integration-created" });
    await firstRun("jobs").waitFor({ timeout: 90_000 });
    await firstRun("applications").waitFor({ timeout: 90_000 });
    await page.getByRole("img", { name: /Records synced per run/ }).waitFor();
    // Durations read as the table reads them: a run under a second in ms, never a 0.
    const durations = (await page.getByRole("img", { name: /Duration per run/ }).getAttribute("aria-label")) ?? "";
    assert.match(durations, /: \d+ ms|: \d+\.\d s/, durations);
    assert.doesNotMatch(durations, /: 0(\.0)? m?s\b/, durations);
    await accessible("integration");
    await shot("first-sync-done");
  },
  200_000,
);

step("the integrations list names it and shows its health", async () => {
  const integrationId = need(run.integrationId, "an integration");
  await page.getByRole("link", { name: "Integrations", exact: true }).click();
  const row = page.locator(`tr[data-integration="${integrationId}"]`);
  await row.getByRole("link", { name: ORG }).waitFor();
  assert.equal(await row.getAttribute("data-health"), "ok");
  assert.equal(await row.locator(".badge-health-ok").textContent(), "ok");
  await accessible("integrations with names and health");
  await shot("integrations-named");
});

step("its positions appear; one has a candidate from the ATS", async () => {
  const hb = need(run.hb, "an API client");
  await page.getByRole("link", { name: "Positions" }).click();
  await page.getByRole("heading", { name: "Positions" }).waitFor();
  const positions = (await hb.positions.list()).items.filter((p) => p.upstream_integration_id === run.integrationId);
  assert.ok(positions.length > 0, "the sync made positions of the new integration's jobs");
  for (const p of positions) {
    const candidate = (await hb.candidates.list(p.id)).find((c) => c.upstream_application_id);
    if (candidate) {
      run.target = {
        positionId: p.id,
        candidateId: candidate.id,
        candidateName: candidate.name,
        applicationId: candidate.upstream_application_id!,
        name: p.name,
      };
      break;
    }
  }
  const target = need(run.target, "a synced position with a candidate linked to an application");
  await page.getByRole("link", { name: target.name }).first().waitFor();
  await accessible("positions");
  await shot("positions");
});

step("map its stages from the choices the ATS offers, with auto_update_stages on", async () => {
  const target = need(run.target, "a position");
  await page.getByRole("link", { name: target.name }).first().click();
  await page.getByRole("heading", { name: "Stage mapping" }).waitFor();
  const passed = page.getByLabel(/^Passed stage/);
  await passed.waitFor();
  const offered = await passed.locator("option").allTextContents();
  assert.ok(offered.includes("Offer"), `the job's stages are offered: ${offered.join(", ")}`);
  await passed.selectOption({ label: "Offer" });
  await page.getByLabel(/^Rejected stage/).selectOption({ label: "Rejected" });
  await page.getByLabel(/^Needs-review stage/).selectOption({ index: 1 });
  // A value the API would refuse is refused in the page, and nothing typed is lost.
  await page.getByLabel("Minimum score to pass").fill("sixty");
  await page.getByRole("button", { name: "Save stage mapping" }).click();
  await page.locator("#min_score-problem").waitFor();
  assert.equal(await passed.locator("option:checked").textContent(), "Offer");
  await page.getByLabel("Minimum score to pass").fill("60");
  await page.getByLabel(/Move applications in the ATS/).check();
  await page.getByRole("button", { name: "Save stage mapping" }).click();
  await page.getByText("Saved.").waitFor();
  await accessible("position");
  await shot("stage-mapping-saved");
  const mapped = await need(run.hb, "an API client").positions.get(target.positionId);
  assert.equal(mapped.auto_update_stages, true);
  assert.equal(mapped.min_score, 60);
  // A stage field holds the stage's id (issue 42): a rename upstream changes nothing for the write-back.
  const offerId = await passed.locator("option:checked").getAttribute("value");
  assert.ok(offerId && offerId !== "Offer", `the option's value is the stage's id: ${offerId}`);
  assert.equal(mapped.passed_stage, offerId, "a stage field holds the stage's id");
  assert.equal(
    mapped.rejected_stage,
    await page
      .getByLabel(/^Rejected stage/)
      .locator("option:checked")
      .getAttribute("value"),
  );
});

step("the mapping names a stage its job does not have (as a name saved before, of a stage removed since)", async () => {
  // As if a name-only mapping's stage had been removed upstream (the job's stages no longer have it).
  const target = need(run.target, "a position");
  await need(run.hb, "an API client").positions.update(target.positionId, { passed_stage: "Offer (old name)" });
});

step("the interview is graded through the API; a reload of the position's page keeps the sign-in", async () => {
  const hb = need(run.hb, "an API client");
  const target = need(run.target, "a position");
  await hb.interviews.update(target.positionId, target.candidateId, {
    status: "completed",
    transcript_link: "https://interviews.example/t/1",
  });
  await hb.interviews.update(target.positionId, target.candidateId, {
    status: "graded",
    score: 88,
    feedback: "Clear, structured answers.",
  });
  // Tokens live in memory only: the reload signs in silently from the token service's SSO session.
  const shown = await loginPagesDuring(page, async () => {
    await page.reload();
    await page.waitForURL(`${consoleUrl()}/positions/${target.positionId}`);
    await page.locator(`tr[data-candidate="${target.candidateId}"]`).getByText("graded").waitFor();
  });
  assert.equal(shown, 0, "no password prompt on a reload");
  assert.deepEqual(await page.evaluate(() => Object.keys(localStorage)), [], "nothing in localStorage");
  assert.deepEqual(await page.evaluate(() => Object.keys(sessionStorage)), [], "nothing left in sessionStorage");
  const identity = (await page.context().cookies(`${authUrl()}/`)).find((c) => c.name === "HIREBRIDGE_IDENTITY");
  assert.equal(identity?.httpOnly, true, "the SSO cookie is HttpOnly");
  assert.equal(identity?.sameSite, "Lax");
  await shot("candidate-graded");
});

step("the Activity tab: an event, a sync run and the failed write-back, each with names; the integration is degraded", async () => {
  const target = need(run.target, "a position");
  await page.getByRole("link", { name: ORG }).click();
  await page.getByRole("heading", { name: ORG, level: 1 }).waitFor();
  await page.getByRole("tab", { name: "Activity" }).click();
  const failed = page.locator('tr[data-kind="write_back"][data-status="failed"]');
  await failed.waitFor({ timeout: 60_000 });
  const text = await failed.textContent();
  assert.ok(text?.includes(`Write-back: ${target.candidateName} (${target.name}) passed, to stage Offer (old name)`), text ?? "");
  assert.ok(text?.includes("stage 'Offer (old name)' is not a stage of the job"), text ?? "");
  // The filters: its webhook events, its sync runs (the first ones are older than the first page's).
  await page.getByLabel("Show").selectOption({ label: "Webhook events" });
  await page.waitForFunction(() => document.querySelectorAll('tr[data-kind]:not([data-kind="event"])').length === 0); // only events
  await page.locator('tr[data-kind="event"]', { hasText: `integration-created: ${ORG} connected lever` }).waitFor();
  await page.getByLabel("Show").selectOption({ label: "Sync runs" });
  await page.locator('tr[data-kind="sync_run"]', { hasText: "Full sync of applications (integration-created): succeeded" }).waitFor();
  await page.getByLabel("Show").selectOption({ label: "Everything" });
  await failed.waitFor();
  await page.locator(".badge-health-degraded").waitFor({ timeout: 20_000 });
  await page
    .getByText(/1 write-back failed in the last 24 h/)
    .first()
    .waitFor();
  await accessible("activity with a failed write-back");
  await shot("activity-failed-write-back"); // README's docs/console.png is this screenshot
});

step("map the stage again, retry the failed write-back from the Activity tab: it lands", async () => {
  const target = need(run.target, "a position");
  const integrationId = need(run.integrationId, "an integration");
  const failedId = await page.locator('tr[data-kind="write_back"][data-status="failed"]').getAttribute("data-item");
  await page.getByRole("link", { name: "Positions" }).click();
  await page.getByRole("link", { name: target.name }).first().click();
  const passed = page.getByLabel(/^Passed stage/);
  await passed.waitFor();
  assert.equal(await passed.locator("option:checked").textContent(), "Offer (old name) (not a stage of this job)");
  await passed.selectOption({ label: "Offer" });
  await page.getByRole("button", { name: "Save stage mapping" }).click();
  await page.getByText("Saved.").waitFor();
  await page.goto(`${consoleUrl()}/integrations/${encodeURIComponent(integrationId)}?tab=activity`);
  const row = page.locator(`tr[data-item="${failedId}"]`);
  await row.getByRole("button", { name: "Retry" }).click();
  await page.getByText(`Write-back for ${target.candidateName} retried: pending.`).waitFor();
  await page.locator(`tr[data-item="${failedId}"][data-status="done"]`).waitFor({ timeout: 60_000 });
  assert.ok((await page.locator(`tr[data-item="${failedId}"]`).textContent())?.includes("to stage Offer"));
  await page.locator(".badge-health-ok").waitFor({ timeout: 20_000 });
  await accessible("activity after the retry");
  await shot("activity-retried");
});

step("the Write-backs tab shows it done by name; the sandbox's application moved once, with one note and one link", async () => {
  const integrationId = need(run.integrationId, "an integration");
  const target = need(run.target, "a position");
  await page.getByRole("tab", { name: "Write-backs" }).click();
  const row = page.locator(`tr[data-application="${target.applicationId}"][data-write-back-state="done"]`);
  await row.waitFor({ timeout: 60_000 });
  assert.ok((await row.textContent())?.startsWith(`${target.candidateName}${target.name}passed`));
  await accessible("write-back done");
  await shot("write-back-done");
  const res = await fetch(
    `${origin(ports.sandbox)}/sandbox/integrations/${encodeURIComponent(integrationId)}/applications/${target.applicationId}`,
  );
  const application = (await res.json()) as {
    current_stage: { name: string } | null;
    notes: { content: string }[];
    result_links: { url: string }[];
  };
  assert.equal(application.current_stage?.name, "Offer");
  assert.equal(application.notes.length, 1, "the retry did not add the note again");
  assert.match(application.notes[0]!.content, /88/);
  assert.equal(application.result_links.length, 1);
});

step("the candidate's own history, on its row of the position's page", async () => {
  const target = need(run.target, "a position");
  await page.getByRole("link", { name: target.name }).first().click();
  await page.getByRole("button", { name: `History of ${target.candidateName}` }).click();
  const history = page.locator(`#history-${target.candidateId}`);
  await history.locator('tr[data-kind="write_back"][data-status="done"]', { hasText: "to stage Offer" }).waitFor();
  await accessible("a candidate's history");
  await shot("candidate-history");
});

/** The sandbox's admin surface (no auth): JSON in, status and JSON out. */
async function sandboxAdmin<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${origin(ports.sandbox)}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Elements of `selector` whose content is cut off (wider or taller than their box, with the overflow hidden or scrolled). */
async function clipped(selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const out: string[] = [];
    if (document.documentElement.scrollWidth > window.innerWidth)
      out.push(`the page scrolls sideways (${document.documentElement.scrollWidth}px)`);
    for (const el of Array.from(document.querySelectorAll<HTMLElement>(`${sel}, ${sel} *`))) {
      const style = getComputedStyle(el);
      const wide = el.scrollWidth > el.clientWidth + 1 && style.overflowX !== "visible";
      const tall = el.scrollHeight > el.clientHeight + 1 && style.overflowY !== "visible";
      // Visually hidden on purpose (a table's caption for screen readers) is not clipped content.
      if (el.closest(".sr-only")) continue;
      if (el.clientWidth > 0 && (wide || tall)) out.push(`${el.tagName.toLowerCase()}.${el.className}: ${el.textContent?.slice(0, 60)}`);
    }
    return out;
  }, selector);
}

type SandboxOrder = { id: string; candidate: { first_name: string | null; last_name: string | null }; receiver: { state: string } };

step("an ATS integration takes assessment orders when turned on: its packages are published to it", async () => {
  const integrationId = need(run.integrationId, "an integration");
  const hb = need(run.hb, "an API client");
  run.template = await hb.positions.create({
    name: "Video screen: support engineer",
    state: "template",
    role_description: "Troubleshooting a customer's problem, explained in plain words.",
    min_score: 55,
  });
  await page.goto(`${consoleUrl()}/integrations/${encodeURIComponent(integrationId)}?tab=assessment`);
  const toggle = page.getByLabel(/Take assessment orders from this ATS/);
  await toggle.waitFor();
  assert.equal(await toggle.isChecked(), false);
  await toggle.check();
  await page.locator(`tr[data-package="${run.template.id}"]`, { hasText: run.template.name }).waitFor();
  assert.equal((await hb.assessment.settings(integrationId)).takes_orders, true);
  await accessible("assessment orders turned on for an ATS");
  await toggle.uncheck();
  await page.locator(`tr[data-package]`).first().waitFor({ state: "detached" });
  assert.equal((await hb.assessment.settings(integrationId)).takes_orders, false);
});

step("an assessment integration: the package republished from the console, an order placed in its ATS, seen by name", async () => {
  const hb = need(run.hb, "an API client");
  const template = need(run.template, "a template position");
  const created = await sandboxAdmin<{ id: string }>("POST", "/sandbox/integrations", { category: "ASSESSMENT", org_id: await hb.orgId() });
  assert.equal(created.status, 201);
  const assessmentId = created.body.id;
  // Recorded from its integration-created webhook; an assessment integration opens on its orders.
  await page.getByRole("link", { name: "Integrations", exact: true }).click();
  await page.locator(`tr[data-integration="${assessmentId}"] a`).click({ timeout: 30_000 });
  await page.getByRole("tab", { name: "Assessment orders", selected: true }).waitFor();
  await page.getByText("always takes orders").waitFor();
  await page.getByRole("button", { name: "Republish packages" }).click();
  await page.getByText(/Published \d+ packages? at/).waitFor();
  const row = page.locator(`tr[data-package="${template.id}"]`);
  await row.waitFor();
  assert.match((await row.textContent()) ?? "", new RegExp(`^${template.name}video interview\\d`));

  const apps = await sandboxAdmin<{ applications: { id: string }[] }>(
    "GET",
    `/sandbox/integrations/${encodeURIComponent(assessmentId)}/applications?limit=1`,
  );
  const placed = await sandboxAdmin<SandboxOrder>("POST", `/sandbox/integrations/${encodeURIComponent(assessmentId)}/assessment-orders`, {
    application_id: apps.body.applications[0]!.id,
    package_id: template.id,
  });
  assert.equal(placed.status, 201);
  assert.equal(placed.body.receiver.state, "accepted");
  const candidateName = [placed.body.candidate.first_name, placed.body.candidate.last_name].filter(Boolean).join(" ");
  // The newest page follows orders as they come (no reload).
  const order = page.locator(`tr[data-order="${placed.body.id}"][data-status="accepted"][data-result="OPEN"]`);
  await order.waitFor({ timeout: 20_000 });
  assert.equal(await order.getByRole("link").textContent(), candidateName);
  assert.ok((await order.textContent())?.includes(template.name), "the package by name");
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.locator("#panel-assessment").screenshot({ path: join(SHOTS, "assessment-section.png") });
  await shot("assessment-orders");
  assert.deepEqual(await clipped("#panel-assessment"), [], "nothing clipped at 1280x800");
  await accessible("assessment orders");
  await page.setViewportSize({ width: 1280, height: 900 });
  run.order = { integrationId: assessmentId, candidateName, orderId: placed.body.id };
});

step("the order in the Activity tab by name; its candidate's link opens the candidate's row with its history", async () => {
  const order = need(run.order, "an order");
  const template = need(run.template, "a template position");
  await page.getByRole("tab", { name: "Activity" }).click();
  await page.getByLabel("Show").selectOption({ label: "Assessment orders" });
  await page
    .locator('tr[data-kind="assessment_order"][data-status="accepted"]', {
      hasText: `Assessment order received: ${order.candidateName} for package ${template.name}; interview created`,
    })
    .waitFor();
  await accessible("an order in the activity");
  await shot("activity-assessment-order");
  await page.getByRole("tab", { name: "Assessment orders" }).click();
  await page.locator(`tr[data-order="${order.orderId}"]`).getByRole("link", { name: order.candidateName }).click();
  const history = page.locator("tr.history");
  await history.locator('tr[data-kind="assessment_order"]', { hasText: order.candidateName }).waitFor();
  // Its position's job is an assessment integration's: no stages to map (and none asked of the ATS).
  await page.getByText("there is nothing to map").waitFor();
  await accessible("the ordered candidate's row");
  await shot("ordered-candidate");
});

step("reconnect it through the same embedded flow (relink), then delete another one after typing its id", async () => {
  await page.getByRole("link", { name: "Integrations", exact: true }).click();
  await page.getByRole("button", { name: `Reconnect ${ORG}` }).click();
  const relink = page.frameLocator('iframe[title="ATS reconnection flow"]');
  await relink.getByRole("heading", { name: "Reconnect your integration" }).waitFor();
  await relink.getByRole("button", { name: "Connect" }).click();
  await page.getByRole("heading", { name: `Reconnect ${ORG}` }).waitFor({ state: "detached" });
  const spare = (await (
    await fetch(`${origin(ports.sandbox)}/sandbox/integrations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        org_id: "6d3f1e2a-9b4c-4f7e-8a1d-2c5b7e9f0a13",
        tool: "greenhouse",
        applications: 1,
        end_user: { organization_name: "Spare Staffing" },
      }),
    })
  ).json()) as { id: string };
  // Recorded from its integration-created webhook, named by its end user's organisation.
  await page.getByRole("link", { name: "Spare Staffing" }).waitFor({ timeout: 30_000 });
  await page.getByRole("button", { name: "Delete Spare Staffing" }).click();
  const confirmDelete = page.getByRole("button", { name: "Delete the integration" });
  assert.equal(await confirmDelete.isDisabled(), true, "disabled until the id is typed");
  await page.getByLabel("Type the integration id to confirm").fill(spare.id);
  await shot("delete-confirmation");
  await confirmDelete.click();
  await page.getByRole("link", { name: "Spare Staffing" }).waitFor({ state: "detached" });
  const gone = await need(run.hb, "an API client")
    .integrations.get(spare.id, { bypassCache: true })
    .then(
      () => "still there",
      (err: Error) => err.name,
    );
  assert.equal(gone, "NotFoundError");
});

step(
  "the Webhooks page: add an endpoint (its secret shown once), a delivery's attempts, re-send, rotate, disable, enable, delete",
  async () => {
    const hb = need(run.hb, "a signed-in SDK");
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      received.push(String(req.headers["webhook-id"]));
      req.resume();
      req.on("end", () => res.writeHead(200).end("thanks"));
    });
    receiver.listen(extraPort(5), "127.0.0.1");
    await once(receiver, "listening");
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    try {
      await page.getByRole("link", { name: "Webhooks" }).click();
      await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
      await page.getByText("candidate.created").first().waitFor(); // the catalogue, from the API
      await accessible("webhooks, no endpoint");
      await page.getByLabel("Endpoint URL").fill(url);
      await page.getByLabel("Description").fill("E2E receiver");
      await page.getByRole("button", { name: "Add endpoint" }).click();
      const secret = (await page.locator("[data-secret]").textContent()) ?? "";
      assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
      await accessible("webhooks, the secret shown");
      await shot("webhooks-secret-once");
      await page.getByRole("button", { name: "I have stored the secret" }).click();
      assert.equal(await page.locator("[data-secret]").count(), 0);
      await page.reload();
      await page.getByRole("heading", { name: "Endpoints" }).waitFor();
      await page.locator("tr[data-endpoint]", { hasText: url }).waitFor();
      assert.ok(!(await page.content()).includes(secret), "the secret is never shown again");

      // An event: a position created through the API arrives, and its attempt shows.
      await hb.positions.create({ name: "Webhook walk" });
      const endpoint = page.locator("tr[data-endpoint]", { hasText: url });
      await endpoint.getByRole("button", { name: "Deliveries" }).click();
      const delivery = page.locator('tr[data-message][data-status="succeeded"]', { hasText: "position.created" }).first();
      await delivery.waitFor({ timeout: 30_000 });
      await delivery.locator('li[data-attempt="1"]', { hasText: "200 ok" }).waitFor();
      const messageId = await delivery.getAttribute("data-message");
      const got = (id: string | null) => received.filter((r) => r === id).length;
      assert.equal(got(messageId), 1, "the receiver got it, with the webhook-id shown");
      await accessible("webhooks, a delivery's attempts");
      await shot("webhooks-deliveries");

      await delivery.getByRole("button", { name: "Re-send" }).click();
      await page.getByText("position.created re-sent").waitFor();
      await page.locator(`tr[data-message="${messageId}"] li[data-attempt="2"]`, { hasText: "(re-sent)" }).waitFor({ timeout: 30_000 });
      assert.equal(got(messageId), 2, "re-sent with the same webhook-id");

      await endpoint.getByRole("button", { name: "Rotate secret" }).click();
      const rotated = (await page.locator("[data-secret]").textContent()) ?? "";
      assert.match(rotated, /^whsec_/);
      assert.notEqual(rotated, secret);
      await page.getByRole("button", { name: "I have stored the secret" }).click();
      await endpoint.getByText(/old secret signs until/).waitFor();

      await endpoint.getByRole("button", { name: "Disable" }).click();
      await page.locator('tr[data-endpoint][data-disabled="true"]', { hasText: url }).waitFor();
      await endpoint.getByRole("button", { name: "Enable" }).click();
      await page.locator('tr[data-endpoint][data-disabled="false"]', { hasText: url }).waitFor();
      await accessible("webhooks, after rotate, disable and enable");

      await endpoint.getByRole("button", { name: "Delete" }).click();
      await endpoint.getByRole("button", { name: "Confirm delete" }).click();
      await page.getByText("No endpoint yet").waitFor();
      assert.deepEqual((await hb.webhookEndpoints.list()).items, []);
    } finally {
      receiver.closeAllConnections();
      receiver.close();
    }
  },
);

step("a new tab on a deep link is signed in without a password prompt", async () => {
  const integrationId = need(run.integrationId, "an integration");
  const tab = await page.context().newPage();
  watch(tab);
  try {
    const shown = await loginPagesDuring(tab, async () => {
      await tab.goto(`${consoleUrl()}/integrations/${encodeURIComponent(integrationId)}`);
      await tab.waitForURL(`${consoleUrl()}/integrations/${encodeURIComponent(integrationId)}`);
      await tab.getByRole("img", { name: /Records synced per run/ }).waitFor();
    });
    assert.equal(shown, 0, "no password prompt in a new tab");
    await shot("new-tab", tab);
  } finally {
    await tab.close();
  }
});

step("readable at a phone's width", async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("link", { name: "Integrations", exact: true }).click();
  await page.getByRole("link", { name: ORG }).waitFor();
  await accessible("phone width");
  await shot("phone-width");
  await page.setViewportSize({ width: 1280, height: 900 });
});

step("sign-out ends the session at the token service, and with it the silent sign-in: a reload and a new tab ask again", async () => {
  const logout = page.waitForResponse((r) => r.url() === `${authUrl()}/protocol/openid-connect/logout`);
  await page.getByRole("button", { name: "Sign out" }).click();
  assert.equal((await logout).status(), 204, "the session ended at the token service");
  await page.getByText("You are signed out.").waitFor();
  await shot("signed-out-again");
  await page.reload();
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  assert.equal(await page.getByRole("button", { name: "Sign out" }).count(), 0, "a reload after sign-out is signed out");
  const tab = await page.context().newPage();
  watch(tab);
  try {
    await tab.goto(`${consoleUrl()}/positions`);
    await tab.getByRole("button", { name: "Sign in" }).waitFor();
    await accessible("signed out in a new tab", tab);
  } finally {
    await tab.close();
  }
});

test("no console error, failed request or error answer the test did not cause", () => {
  assert.deepEqual(problems, []);
});
