/**
 * The operator console end to end, in a real headless Chromium (Debian's `chromium`, driven by
 * playwright-core; nothing is downloaded) against the stack started exactly as `npm start` starts
 * it (the console built by prestart), on free ports and a temporary DATA_DIR. A screenshot per step
 * goes to test-results/console/ (git-ignored). Any error in the page's console, any failed request
 * the test did not cause, and any axe-core violation at the serious or critical level fails it.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { Hirebridge } from "../../src/client/index.js";
import { freePort } from "../helpers/ports.js";

const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";
const ROOT = resolve(import.meta.dirname, "..", "..");
const SHOTS = join(ROOT, "test-results", "console");
const AXE = join(ROOT, "node_modules", "axe-core", "axe.min.js");

type Ports = { proxy: number; api: number; console: number; auth: number; sandbox: number };

let ports: Ports;
let dataDir: string;
let server: ChildProcess | undefined;
let browser: Browser | undefined;
let page: Page;
const problems: string[] = [];
let step = 0;

const origin = (port: number) => `http://127.0.0.1:${port}`;

/** `npm start` with the run contract's variables pointed at free ports; resolves once it printed its banner. */
async function startLikeNpmStart(): Promise<string> {
  const env = {
    ...process.env,
    HOST: "127.0.0.1",
    PROXY_PORT: String(ports.proxy),
    API_PORT: String(ports.api),
    CONSOLE_PORT: String(ports.console),
    AUTH_PORT: String(ports.auth),
    SANDBOX_PORT: String(ports.sandbox),
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    PASSWORD_HASH_SCRYPT_N: "1024",
  };
  server = spawn("npm", ["start", "--silent"], { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  server.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  server.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 120_000;
  while (!out.includes("Hirebridge is running.")) {
    if (server.exitCode !== null) throw new Error(`npm start exited ${server.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`npm start did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return out;
}

async function shot(name: string, p: Page = page): Promise<void> {
  step++;
  await p.screenshot({ path: join(SHOTS, `${String(step).padStart(2, "0")}-${name}.png`), fullPage: true });
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
    ports = {
      proxy: await freePort(),
      api: await freePort(),
      console: await freePort(),
      auth: await freePort(),
      sandbox: await freePort(),
    };
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
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
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

test("the console: sign in, connect an ATS, watch its first sync, map stages, see the write-back land upstream", {
  timeout: 300_000,
}, async () => {
  const consoleUrl = origin(ports.console);
  const authUrl = `${origin(ports.auth)}/realms/hirebridge`;
  // The test's own API client (what the interview runner would do): the demo user through the password grant.
  const hb = new Hirebridge({
    authUrl,
    apiUrl: `${origin(ports.api)}/api/v1`,
    proxyUrl: `${origin(ports.proxy)}/api/v1`,
    credentials: { username: "demo", password: "demo-password" },
  });

  // 1. Sign in with the authorization code flow: the token service's own login page.
  await page.goto(consoleUrl);
  await page.getByRole("button", { name: "Sign in" }).waitFor();
  await accessible("signed out");
  await shot("signed-out");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${authUrl}/protocol/openid-connect/auth?**`);
  assert.match(page.url(), /code_challenge_method=S256/);
  await accessible("login page");
  await page.getByLabel("Username or email").fill("demo");
  await page.getByLabel("Password").fill("demo-password");
  await shot("login-page");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${consoleUrl}/`);
  await page.getByRole("heading", { name: "Integrations" }).waitFor();
  await page.getByText("demo", { exact: true }).waitFor();
  await accessible("integrations");
  await shot("signed-in");

  // 2. Connect a new ATS through the sandbox's connection page, embedded in the console.
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
  const integrationId = decodeURIComponent(page.url().split("/integrations/")[1]!);

  // 3. Its first sync (started by integration-created) finishes: jobs, then applications.
  const firstRun = (model: string) =>
    page.locator(`tr[data-model="${model}"][data-run-state="succeeded"]`, { hasText: "integration-created" });
  await firstRun("jobs").waitFor({ timeout: 90_000 });
  await firstRun("applications").waitFor({ timeout: 90_000 });
  await page.getByRole("img", { name: /Records synced per run/ }).waitFor();
  await accessible("integration");
  await shot("first-sync-done");

  // 4. Its positions appear; pick one whose candidates came from the ATS.
  await page.getByRole("link", { name: "Positions" }).click();
  await page.getByRole("heading", { name: "Positions" }).waitFor();
  const positions = (await hb.positions.list()).items.filter((p) => p.upstream_integration_id === integrationId);
  assert.ok(positions.length > 0, "the sync made positions of the new integration's jobs");
  let target: { positionId: string; candidateId: string; applicationId: string; name: string } | undefined;
  for (const p of positions) {
    const candidate = (await hb.candidates.list(p.id)).find((c) => c.upstream_application_id);
    if (candidate) {
      target = { positionId: p.id, candidateId: candidate.id, applicationId: candidate.upstream_application_id!, name: p.name };
      break;
    }
  }
  assert.ok(target, "a synced position has a candidate linked to an application");
  await page.getByRole("link", { name: target.name }).first().waitFor();
  await accessible("positions");
  await shot("positions");

  // 5. Map its stages from the choices the ATS offers, with auto_update_stages on.
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
  const mapped = await hb.positions.get(target.positionId);
  assert.equal(mapped.auto_update_stages, true);
  assert.equal(mapped.min_score, 60);
  assert.ok(mapped.passed_stage, "passed_stage saved");

  // 6. The interview is graded through the API, as the interview runner does.
  await hb.interviews.update(target.positionId, target.candidateId, {
    status: "completed",
    transcript_link: "https://interviews.example/t/1",
  });
  await hb.interviews.update(target.positionId, target.candidateId, {
    status: "graded",
    score: 88,
    feedback: "Clear, structured answers.",
  });
  await page.reload();
  await page.getByRole("button", { name: "Sign in" }).waitFor(); // tokens live in memory: a reload signs in again
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByLabel("Username or email").fill("demo");
  await page.getByLabel("Password").fill("demo-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${consoleUrl}/positions/${target.positionId}`);
  await page.locator(`tr[data-candidate="${target.candidateId}"]`).getByText("graded").waitFor();
  await shot("candidate-graded");

  // 7. The console shows the write-back done; the sandbox's application moved with its note and result link.
  await page.getByRole("link", { name: integrationId }).click();
  await page.locator(`tr[data-application="${target.applicationId}"][data-write-back-state="done"]`).waitFor({ timeout: 60_000 });
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
  assert.equal(application.notes.length, 1);
  assert.match(application.notes[0]!.content, /88/);
  assert.equal(application.result_links.length, 1);

  // 8. Reconnect it through the same embedded flow (relink), then delete another one after typing its id.
  await page.getByRole("link", { name: "Integrations", exact: true }).click();
  await page.getByRole("button", { name: `Reconnect ${integrationId}` }).click();
  const relink = page.frameLocator('iframe[title="ATS reconnection flow"]');
  await relink.getByRole("heading", { name: "Reconnect your integration" }).waitFor();
  await relink.getByRole("button", { name: "Connect" }).click();
  await page.getByRole("heading", { name: `Reconnect ${integrationId}` }).waitFor({ state: "detached" });
  const spare = (await (
    await fetch(`${origin(ports.sandbox)}/sandbox/integrations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ org_id: "6d3f1e2a-9b4c-4f7e-8a1d-2c5b7e9f0a13", tool: "greenhouse", applications: 1 }),
    })
  ).json()) as { id: string };
  await page.getByRole("link", { name: spare.id }).waitFor({ timeout: 30_000 }); // recorded from its integration-created webhook
  await page.getByRole("button", { name: `Delete ${spare.id}` }).click();
  const confirmDelete = page.getByRole("button", { name: "Delete the integration" });
  assert.equal(await confirmDelete.isDisabled(), true, "disabled until the id is typed");
  await page.getByLabel("Type the integration id to confirm").fill(spare.id);
  await shot("delete-confirmation");
  await confirmDelete.click();
  await page.getByRole("link", { name: spare.id }).waitFor({ state: "detached" });
  const gone = await hb.integrations.get(spare.id, { bypassCache: true }).then(
    () => "still there",
    (err: Error) => err.name,
  );
  assert.equal(gone, "NotFoundError");

  // 9. Readable at a phone's width; sign-out ends the session at the token service.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("link", { name: "Integrations", exact: true }).click();
  await page.getByRole("link", { name: integrationId }).waitFor();
  await accessible("phone width");
  await shot("phone-width");
  await page.setViewportSize({ width: 1280, height: 900 });
  const logout = page.waitForResponse((r) => r.url() === `${authUrl}/protocol/openid-connect/logout`);
  await page.getByRole("button", { name: "Sign out" }).click();
  assert.equal((await logout).status(), 204, "the session ended at the token service");
  await page.getByText("You are signed out.").waitFor();
  await shot("signed-out-again");

  assert.deepEqual(problems, [], "no console error, failed request or error answer the test did not cause");
});
