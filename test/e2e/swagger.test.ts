/**
 * Swagger UI's Authorize on both `/docs` pages (the recruiting API's and the proxy's), in a real
 * headless Chromium (Debian's, driven by playwright-core) against the embedded token service over
 * real HTTP on other origins: the OAuth2 password flow logs in across origins (the token service's
 * CORS preflight allows what Swagger UI sends), and "Try it out" then sends the token (the operation
 * declares its security) and gets 200. Screenshots go to test-results/swagger/ (git-ignored).
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { buildProxyWithSync } from "../../src/runtime/wiring.js";
import { buildRecruitingApp } from "../../src/services/recruiting/app.js";
import type { App } from "../../src/shared/http/create-app.js";
import { startTestIdentity, type TestIdentity, type TestLogin } from "../helpers/auth.js";
import { silentLogger, testConfig } from "../helpers/config.js";
import { freshDatabase } from "../helpers/db.js";
import { freePort } from "../helpers/ports.js";

const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";
const SHOTS = join(resolve(import.meta.dirname, "..", ".."), "test-results", "swagger");

const database = await freshDatabase("pglite");
let identity: TestIdentity;
let user: TestLogin;
let browser: Browser | undefined;
const apps: { name: string; app: App; origin: string }[] = [];

before(
  async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
    await rm(SHOTS, { recursive: true, force: true });
    await mkdir(SHOTS, { recursive: true });
    identity = await startTestIdentity(database);
    user = await identity.login();
    const config = testConfig({ AUTH_ISSUER: identity.issuer, AUTH_CLIENT_ID: "hirebridge" });
    const deps = { config, database, logger: silentLogger(), verify: identity.verify };
    for (const [name, app] of [
      ["recruiting API", await buildRecruitingApp(deps)],
      ["proxy", await buildProxyWithSync({ ...deps, workers: false })],
    ] as const) {
      const port = await freePort();
      await app.listen({ host: "127.0.0.1", port });
      apps.push({ name, app, origin: `http://127.0.0.1:${port}` });
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--headless", "--no-sandbox", "--disable-gpu"] });
  },
  { timeout: 120_000 },
);

after(async () => {
  await browser?.close();
  for (const { app } of apps) await app.close();
  await identity?.close();
  await database.dispose();
});

/** Logs in through the Authorize dialog's OAuth2 password flow, as a person would. */
async function authorize(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Authorize", exact: true }).first().click();
  const dialog = page.locator(".auth-container", { hasText: "OAuth2, password" });
  await dialog.locator("#oauth_username").fill(user.username);
  await dialog.locator("#oauth_password").fill(user.password);
  assert.equal(await dialog.locator("#client_id_password").inputValue(), "hirebridge", "the client id is filled in");
  await dialog.locator("button.modal-btn.authorize").click();
  // Swagger UI swaps Authorize for Logout once the token service answered with a token.
  await dialog.locator("button.modal-btn", { hasText: "Logout" }).waitFor({ timeout: 15_000 });
  await page.locator("button.btn-done").first().click();
}

/** Expands one operation, presses "Try it out" then "Execute"; answers the status shown. */
async function tryItOut(page: Page, operation: string): Promise<string> {
  const block = page.locator(`#${operation}`);
  await block.locator(".opblock-summary").first().click();
  await block.getByRole("button", { name: "Try it out" }).click();
  await block.getByRole("button", { name: "Execute" }).click();
  const status = block.locator(".live-responses-table .response .response-col_status").first();
  await status.waitFor({ timeout: 15_000 });
  return (await status.textContent())?.trim() ?? "";
}

test("Authorize logs in at the token service and Try it out sends the token, on both /docs pages", { timeout: 120_000 }, async () => {
  // One operation per page that the quickstart uses, which declared no security before.
  const operations: Record<string, string> = {
    "recruiting API": "operations-organization-get_api_v1_org_id",
    proxy: "operations-Integrations-get_api_v1_integrations",
  };
  for (const { name, origin } of apps) {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    const failures: string[] = [];
    page.on("requestfailed", (req) => failures.push(`${req.method()} ${req.url()} ${req.failure()?.errorText}`));
    page.on("console", (msg) => {
      // Swagger UI's bundle sets one inline style as it loads, which the page's strict CSP refuses
      // (harmless, and known before this test): every other error counts.
      if (
        msg.type() === "error" &&
        !(msg.text().startsWith("Applying inline style") && msg.location().url.endsWith("/swagger-ui-bundle.js"))
      ) {
        failures.push(`console error: ${msg.text()}`);
      }
    });
    await page.goto(`${origin}/docs`);
    await page.locator(".opblock").first().waitFor();
    await authorize(page);
    const slug = name.replace(/\W+/g, "-");
    await page.screenshot({ path: join(SHOTS, `${slug}-authorized.png`) });
    const status = await tryItOut(page, operations[name]!);
    await page.screenshot({ path: join(SHOTS, `${slug}-tried.png`), fullPage: false });
    assert.equal(status, "200", `${name}: Try it out with the token`);
    assert.deepEqual(failures, [], `${name}: no failed request or console error`);
    await page.close();
  }
});
