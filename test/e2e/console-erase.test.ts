/**
 * A candidate's personal data from the console (issue 41), in a real headless Chromium (Debian's
 * `chromium` through playwright-core) at 1280x800: **Export data** downloads the candidate's export
 * as `candidate-{id}.json`; **Erase personal data** opens a dialog that says what happens, keeps its
 * button disabled until ERASE is typed, erases nothing on Cancel, and after the erasure the row is
 * gone, the notice shows the API's counts by kind and the API answers 404 for the candidate. axe-core
 * on each state; screenshots in test-results/console-erase/ (git-ignored).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Page } from "playwright-core";
import { Hirebridge, NotFoundError, type Candidate, type Position } from "../../src/client/index.js";
import { accessible, origin, passwordSignIn, startConsoleStack, watch, type ConsoleStack } from "./console-harness.js";

let stack: ConsoleStack;
let page: Page;
let hb: Hirebridge;
let shots = 0;
let position: Position;
let ada: Candidate;
let grace: Candidate;

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(stack.shotsDir, `${String(++shots).padStart(2, "0")}-${name}.png`) });
}

before(
  async () => {
    stack = await startConsoleStack("console-erase");
    page = await (await stack.browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true })).newPage();
    watch(stack, page);
    hb = new Hirebridge({
      authUrl: stack.authUrl,
      apiUrl: `${origin(stack.ports.api)}/api/v1`,
      proxyUrl: `${origin(stack.ports.proxy)}/api/v1`,
      credentials: { username: "demo", password: "demo-password" },
    });
    position = await hb.positions.create({ name: "Erasure check" });
    ada = await hb.candidates.create(position.id, {
      name: "Ada Lovelace",
      email: "ada.erase@example.com",
      phone: "+44 20 7946 0001",
      language: "en",
    });
    grace = await hb.candidates.create(position.id, {
      name: "Grace Hopper",
      email: "grace.keep@example.com",
      phone: "+1 202 555 0100",
      language: "en",
    });
  },
  { timeout: 240_000 },
);

after(async () => {
  await stack?.close();
});

test("sign in and open the position's candidates at 1280x800", { timeout: 60_000 }, async () => {
  await page.goto(`${stack.consoleUrl}/positions/${position.id}`);
  await page.getByRole("button", { name: "Sign in" }).click();
  await passwordSignIn(stack, page);
  await page.locator(`tr[data-candidate="${ada.id}"]`).waitFor();
  await page.locator(`tr[data-candidate="${grace.id}"]`).waitFor();
  await accessible(page, "position with its candidates");
});

test("Export data downloads the candidate's export, named after its id, holding the email", { timeout: 30_000 }, async () => {
  const row = page.locator(`tr[data-candidate="${ada.id}"]`);
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    row.getByRole("button", { name: "Export data of Ada Lovelace" }).click(),
  ]);
  assert.equal(download.suggestedFilename(), `candidate-${ada.id}.json`);
  const doc = JSON.parse(await readFile((await download.path())!, "utf8")) as { candidate: Candidate };
  assert.equal(doc.candidate.id, ada.id);
  assert.equal(doc.candidate.email, "ada.erase@example.com");
  assert.ok(JSON.stringify(doc).includes("ada.erase@example.com"));
});

test("the erase dialog says what happens; its button waits for ERASE; Cancel erases nothing", { timeout: 30_000 }, async () => {
  const row = page.locator(`tr[data-candidate="${ada.id}"]`);
  await row.getByRole("button", { name: "Erase personal data of Ada Lovelace" }).click();
  const dialog = page.getByRole("dialog", { name: "Erase the personal data of Ada Lovelace?" });
  await dialog.waitFor();
  const text = (await dialog.textContent()) ?? "";
  assert.match(text, /removed everywhere in Hirebridge/);
  assert.match(text, /tombstone keeps the ids only/);
  assert.match(text, /ATS keeps its own copy/);
  assert.ok(text.includes(ada.id), "the tombstone's candidate id is named");
  const erase = dialog.getByRole("button", { name: "Erase personal data" });
  assert.equal(await erase.isDisabled(), true, "disabled before anything is typed");
  await dialog.getByLabel("Type ERASE to confirm").fill("erase");
  assert.equal(await erase.isDisabled(), true, "disabled for anything but ERASE");
  await dialog.getByLabel("Type ERASE to confirm").fill("ERASE");
  assert.equal(await erase.isDisabled(), false, "enabled once ERASE is typed");
  for (const b of [erase, dialog.getByRole("button", { name: "Cancel" })]) {
    const box = (await b.boundingBox())!;
    assert.ok(
      box.x >= 0 && box.y >= 0 && box.x + box.width <= 1280 && box.y + box.height <= 800,
      `${await b.textContent()} inside the 1280x800 viewport`,
    );
  }
  await accessible(page, "the erase dialog");
  await shot("erase-dialog");

  await dialog.getByRole("button", { name: "Cancel" }).click();
  await dialog.waitFor({ state: "detached" });
  assert.equal((await hb.candidates.get(position.id, ada.id)).email, "ada.erase@example.com", "Cancel erased nothing");
  await row.waitFor();

  // Escape cancels too, and the dialog opens again empty.
  await row.getByRole("button", { name: "Erase personal data of Ada Lovelace" }).click();
  await dialog.waitFor();
  assert.equal(await dialog.getByLabel("Type ERASE to confirm").inputValue(), "");
  assert.equal(await erase.isDisabled(), true);
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached" });
  assert.equal((await hb.candidates.get(position.id, ada.id)).id, ada.id, "Escape erased nothing");
});

test("erased: the row goes, the notice shows the API's counts by kind, the API answers 404", { timeout: 30_000 }, async () => {
  const row = page.locator(`tr[data-candidate="${ada.id}"]`);
  await row.getByRole("button", { name: "Erase personal data of Ada Lovelace" }).click();
  const dialog = page.getByRole("dialog", { name: "Erase the personal data of Ada Lovelace?" });
  await dialog.getByLabel("Reason (optional, no personal data)").fill("data subject request");
  await dialog.getByLabel("Type ERASE to confirm").fill("ERASE");
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "DELETE" && r.url().includes(`/candidates/${ada.id}/`)),
    dialog.getByRole("button", { name: "Erase personal data" }).click(),
  ]);
  assert.equal(answer.status(), 200);
  assert.equal(new URL(answer.url()).searchParams.get("reason"), "data subject request");
  const body = (await answer.json()) as { erased: Record<string, number>; ats_copy: string };
  assert.equal(body.erased["candidates"], 1);
  assert.equal(body.erased["interviews"], 1);

  const notice = page.locator(`[data-erased="${ada.id}"]`);
  await notice.waitFor();
  await dialog.waitFor({ state: "detached" });
  const shown: Record<string, number> = {};
  for (const li of await notice.locator("li[data-kind]").all())
    shown[(await li.getAttribute("data-kind"))!] = Number(await li.locator("strong").textContent());
  assert.deepEqual(shown, Object.fromEntries(Object.entries(body.erased).filter(([, n]) => n > 0)), "every kind erased, with its count");
  assert.ok(((await notice.textContent()) ?? "").includes(body.ats_copy), "what the ATS keeps");
  assert.equal(
    await page.evaluate(() => document.activeElement?.id),
    "erased-title",
    "focus goes on from the notice (the row's button is gone)",
  );

  await row.waitFor({ state: "detached" });
  await page.locator(`tr[data-candidate="${grace.id}"]`).waitFor();
  assert.equal(((await page.locator("table").first().textContent()) ?? "").includes("ada.erase@example.com"), false);
  await assert.rejects(hb.candidates.get(position.id, ada.id), (err: unknown) => err instanceof NotFoundError && err.status === 404);
  assert.deepEqual(
    (await hb.candidates.list(position.id)).map((c) => c.id),
    [grace.id],
  );
  await accessible(page, "after the erasure");
  await shot("erased");

  // A reload reads the list again: still gone.
  await page.reload();
  await page.locator(`tr[data-candidate="${grace.id}"]`).waitFor();
  assert.equal(await page.locator(`tr[data-candidate="${ada.id}"]`).count(), 0);
});

test("no console error, failed request or error answer the test did not cause", () => {
  assert.deepEqual(stack.problems, []);
});
