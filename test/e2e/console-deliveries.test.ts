/**
 * The console in a real headless Chromium (Debian's `chromium` through playwright-core), at
 * 1280x800: the connect frame sized to its content (no button clipped or covered, in the page or
 * in the frame), the new integration ACTIVE at once, `?tab=` kept across a sign-in, and the
 * deliveries view of the Webhooks page (pages, status filter, each delivery's webhook-id, headers
 * and payload, a test event, re-send of what failed since a time, the catalogue as text), with
 * axe-core on each. Screenshots in test-results/console-deliveries/ (git-ignored).
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Frame, Locator, Page } from "playwright-core";
import { Hirebridge } from "../../src/client/index.js";
import { accessible, extraPort, origin, passwordSignIn, startConsoleStack, watch, type ConsoleStack } from "./console-harness.js";

let stack: ConsoleStack;
let page: Page;
let hb: Hirebridge;
let shots = 0;
const ORG = "Frame Check Recruiting";

/** The receiver of the test's endpoint: answers 500 to a body naming "fail-me" while `failing`, 200 otherwise. */
const received: { id: string; body: string; headers: Record<string, string | string[] | undefined> }[] = [];
let failing = true;
let receiver: Server;

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(stack.shotsDir, `${String(++shots).padStart(2, "0")}-${name}.png`) });
}

before(
  async () => {
    receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (d: Buffer) => (body += d.toString()));
      req.on("end", () => {
        received.push({ id: String(req.headers["webhook-id"]), body, headers: req.headers });
        res.writeHead(failing && body.includes("fail-me") ? 500 : 200).end(failing && body.includes("fail-me") ? "not now" : "thanks");
      });
    });
    receiver.listen(extraPort(5), "127.0.0.1");
    await once(receiver, "listening");
    // One attempt per delivery: a refused one is failed at once (no retry to wait for).
    stack = await startConsoleStack("console-deliveries", { WEBHOOK_RETRY_SCHEDULE: "0s" });
    page = await (await stack.browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watch(stack, page);
    hb = new Hirebridge({
      authUrl: stack.authUrl,
      apiUrl: `${origin(stack.ports.api)}/api/v1`,
      proxyUrl: `${origin(stack.ports.proxy)}/api/v1`,
      credentials: { username: "demo", password: "demo-password" },
    });
  },
  { timeout: 240_000 },
);

after(async () => {
  receiver?.closeAllConnections();
  receiver?.close();
  await stack?.close();
});

/**
 * Buttons that are cut off or covered: each one's box must lie inside the viewport (and, in the
 * frame, inside the frame's box), and the element at its centre must be the button (or inside it).
 */
async function clippedButtons(
  where: Locator,
  within: { x: number; y: number; width: number; height: number } | null,
  opts: { scroll?: boolean } = {},
): Promise<string[]> {
  const out: string[] = [];
  const vp = page.viewportSize()!;
  for (const b of await where.locator("button:visible").all()) {
    const name = (await b.textContent())?.trim() ?? "?";
    if (opts.scroll) await b.scrollIntoViewIfNeeded(); // below the fold is not clipped: judged once scrolled to
    const box = await b.boundingBox(); // relative to the main frame's viewport, in a frame too
    if (!box) {
      out.push(`${name}: no box`);
      continue;
    }
    const inside = (r: { x: number; y: number; width: number; height: number }) =>
      box.x >= r.x - 0.5 && box.y >= r.y - 0.5 && box.x + box.width <= r.x + r.width + 0.5 && box.y + box.height <= r.y + r.height + 0.5;
    if (!inside({ x: 0, y: 0, width: vp.width, height: vp.height }))
      out.push(`${name}: outside the ${vp.width}x${vp.height} viewport (${JSON.stringify(box)})`);
    if (within && !inside(within)) out.push(`${name}: outside its frame (${JSON.stringify(box)} in ${JSON.stringify(within)})`);
    const onTop = await b.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return top !== null && (top === el || el.contains(top));
    });
    if (!onTop) out.push(`${name}: covered by another element`);
  }
  return out;
}

async function connectFrame(): Promise<{ frame: Frame; frameEl: Locator }> {
  const frameEl = page.locator('iframe[title="ATS connection flow"]');
  await frameEl.waitFor();
  const frame = (await (await frameEl.elementHandle())!.contentFrame())!;
  await frame.getByRole("heading", { name: "Connect your ATS system" }).waitFor();
  return { frame, frameEl };
}

test("sign in at 1280x800", { timeout: 60_000 }, async () => {
  await page.goto(stack.consoleUrl);
  await page.getByRole("button", { name: "Sign in" }).click();
  await passwordSignIn(stack, page);
  await page.getByRole("heading", { name: "Integrations" }).waitFor();
});

let integrationId = "";

test("the connect frame fits its content at 1280x800: no button clipped or covered; the new integration is ACTIVE at once", {
  timeout: 90_000,
}, async () => {
  await page.getByRole("button", { name: "Connect an ATS" }).click();
  await page.getByLabel("Organisation name").fill(ORG);
  await page.getByLabel("Email of the person connecting").fill("it@frame.example");
  await page.getByRole("button", { name: "Open the connection flow" }).click();
  const { frame, frameEl } = await connectFrame();
  // The frame takes the height its page reports: nothing in it scrolls.
  await page.waitForFunction((el) => (el as HTMLElement).style.height !== "", await frameEl.elementHandle());
  const inner = await frame.evaluate(() => ({
    scroll: document.documentElement.scrollHeight,
    client: document.documentElement.clientHeight,
  }));
  assert.ok(inner.scroll <= inner.client + 1, `the frame's page scrolls inside it (${inner.scroll}px in ${inner.client}px)`);
  await page.waitForTimeout(300); // the scroll into view settles
  const frameBox = (await frameEl.boundingBox())!;
  assert.deepEqual(await clippedButtons(frame.locator("body"), frameBox), [], "no button of the connection flow clipped");
  assert.deepEqual(
    await clippedButtons(page.locator('section[aria-labelledby="connect-title"]'), null),
    [],
    "no button of the panel clipped",
  );
  assert.equal(await frame.getByRole("button").count(), 3, "Connect, Cancel and Simulate wrong credentials checked");
  await accessible(page, "connect frame at 1280x800");
  await shot("connect-frame-1280x800");

  await frame.getByLabel("Lever").check();
  await frame.getByRole("button", { name: "Connect" }).click();
  await page.waitForURL(/\/integrations\/lever%3A/);
  integrationId = decodeURIComponent(page.url().split("/integrations/")[1]!.split("?")[0]!);
  await page.getByRole("link", { name: "Integrations", exact: true }).click();
  // Read from the upstream at activation, not left unknown until a poll or a state webhook.
  const row = page.locator(`tr[data-integration="${integrationId}"]`);
  await row.waitFor();
  assert.equal(await row.locator("td").nth(2).textContent(), "ACTIVE");
  await accessible(page, "integrations with the new one");
});

test("?tab= is kept across a sign-in: signed out, a deep link to the Activity tab opens it after the password", {
  timeout: 60_000,
}, async () => {
  assert.ok(integrationId, "an integration from the step before");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByText("You are signed out.").waitFor();
  const deep = `/integrations/${encodeURIComponent(integrationId)}?tab=activity`;
  await page.goto(`${stack.consoleUrl}${deep}`);
  await page.getByRole("button", { name: "Sign in" }).click();
  await passwordSignIn(stack, page);
  await page.waitForURL(`${stack.consoleUrl}${deep}`);
  await page.getByRole("tab", { name: "Activity", selected: true }).waitFor();
});

test("deliveries: pages, status filter, webhook-id, headers and payload; a test event; re-send what failed since", {
  timeout: 120_000,
}, async () => {
  const endpoint = await hb.webhookEndpoints.create({
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
    description: "Deliveries view",
    event_types: ["position.created"],
  });
  const names = Array.from({ length: 22 }, (_, i) => (i % 8 === 3 ? `fail-me ${i}` : `Deliveries ${i}`));
  for (const name of names) await hb.positions.create({ name });
  const failedCount = names.filter((n) => n.startsWith("fail-me")).length;
  // All delivered or failed (one attempt each) before the page is judged.
  for (let i = 0; i < 100 && received.length < names.length; i++) await new Promise((r) => setTimeout(r, 200));
  assert.equal(received.length, names.length);

  // A deep link with the endpoint and a filter survives the sign-in too (the whole query is kept).
  await page.goto(`${stack.consoleUrl}/webhooks?endpoint=${endpoint.id}&status=failed`);
  const rows = page.locator("tr[data-message]");
  await page.locator('tr[data-message][data-status="failed"]').first().waitFor();
  assert.equal(await page.getByLabel("Status").inputValue(), "failed");
  assert.equal(await rows.count(), failedCount, "only the failed ones");
  assert.equal(await page.locator('tr[data-message]:not([data-status="failed"])').count(), 0);

  await page.getByLabel("Status").selectOption("");
  await page.waitForURL(`${stack.consoleUrl}/webhooks?endpoint=${endpoint.id}`);
  await page.getByRole("button", { name: "Older" }).waitFor();
  assert.equal(await rows.count(), 20, "20 a page");
  const firstPage = await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-message")));
  await page.getByRole("button", { name: "Older" }).click();
  await page.getByText("Page 2").waitFor();
  await page.waitForFunction((first) => !document.querySelector(`tr[data-message="${first}"]`), firstPage[0]);
  const secondPage = await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-message")));
  assert.equal(secondPage.length, names.length - 20);
  assert.equal(new Set([...firstPage, ...secondPage]).size, names.length, "every delivery once across the pages");
  await page.getByRole("button", { name: "Newer" }).click();
  await page.getByText("Page 1").waitFor();

  // What one delivery carried: its webhook-id, the headers sent and the payload, as the receiver got them.
  const row = rows.first();
  const messageId = (await row.getAttribute("data-message"))!;
  await row.getByRole("button", { name: "Details" }).click();
  const detail = page.locator(`tr[data-detail="${messageId}"]`);
  const got = received.find((r) => r.id === messageId)!;
  assert.ok(got, "the receiver got the delivery shown first");
  assert.equal(await detail.locator("[data-webhook-id]").textContent(), messageId);
  assert.deepEqual(JSON.parse((await detail.locator("[data-payload]").textContent()) ?? ""), JSON.parse(got.body));
  const headers = await detail.locator("[data-headers] dt").allTextContents();
  for (const h of ["webhook-id", "webhook-timestamp", "webhook-signature"]) assert.ok(headers.includes(h), `header ${h} shown`);
  assert.equal(
    await detail.locator("[data-headers] dd").nth(headers.indexOf("webhook-signature")).textContent(),
    got.headers["webhook-signature"],
  );
  await accessible(page, "a delivery's details");
  await shot("delivery-details");
  const deliveriesPanel = page.locator('section[aria-labelledby="deliveries-title"]');
  assert.deepEqual(await clippedButtons(deliveriesPanel, null, { scroll: true }), [], "no button clipped or covered");

  // A test event of a type, signed, through the normal path; listed as a test.
  const before = received.length;
  await page.getByLabel("Event type", { exact: true }).selectOption("position.created");
  await page.getByRole("button", { name: "Send test event" }).click();
  await page.getByText(/Test event position\.created sent/).waitFor();
  await page.locator('tr[data-message][data-test="true"][data-status="succeeded"]').waitFor({ timeout: 20_000 });
  const test = received.slice(before).find((r) => JSON.parse(r.body).test === true);
  assert.ok(test, "the receiver got a test event");
  assert.ok(test.headers["webhook-signature"], "signed");

  // Re-send everything that failed since an hour ago: the receiver takes them now.
  failing = false;
  const since = new Date(Date.now() - 3600_000);
  const local = new Date(since.getTime() - since.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  await page.getByLabel("Failed since").fill(local);
  await page.getByRole("button", { name: "Re-send failed" }).click();
  await page.getByText(`${failedCount} failed deliveries since`).waitFor();
  await page.getByLabel("Status").selectOption("failed");
  await page.getByText("No failed deliveries.").waitFor({ timeout: 30_000 });
  assert.equal((await hb.webhookEndpoints.deliveries(endpoint.id, { status: "failed" })).items.length, 0);
  await accessible(page, "deliveries after the re-send");
  await shot("deliveries-resent");
});

test("the event catalogue reads as text: code as code, no backticks or markup", { timeout: 30_000 }, async () => {
  const types = page.locator("dl.event-types");
  await types.waitFor();
  const text = (await types.textContent()) ?? "";
  assert.ok(text.includes("sync_run.finished"));
  assert.doesNotMatch(text, /[`*<>]/);
  assert.ok((await types.locator("dd code").count()) > 0, "code spans as <code>");
});

test("no console error, failed request or error answer the test did not cause", () => {
  assert.deepEqual(stack.problems, []);
});
