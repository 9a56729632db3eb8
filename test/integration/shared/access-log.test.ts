import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { createApp } from "../../../src/shared/http/create-app.js";
import { createLogger, prettyLine, resolveLogFormat } from "../../../src/shared/http/logger.js";

/** A stdout stand-in that keeps what was written (and says whether it is a terminal). */
function sink(isTTY: boolean): Writable & { isTTY: boolean; text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  }) as Writable & { isTTY: boolean; text(): string };
  stream.isTTY = isTTY;
  stream.text = () => chunks.join("");
  return stream;
}

async function serveOnce(format: "json" | "pretty", level: string, isTTY = false) {
  const out = sink(isTTY);
  const logger = createLogger(level, { format, destination: out });
  const app = createApp({ service: "api", logger: logger.child({ service: "api" }) });
  app.get("/api/v1/org/:org_id/position", async () => ({ items: [] }));
  await app.ready();
  await app.inject({ method: "GET", url: "/api/v1/org/6d3f/position?state=active&token=s3cret" });
  await app.inject({ method: "GET", url: "/healthz" });
  await app.inject({ method: "GET", url: "/nowhere" });
  await app.close();
  return out.text();
}

test("JSON: one line per request with method, route template, status and duration; probes only at debug", async () => {
  const lines = (await serveOnce("json", "info"))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const requests = lines.filter((l) => l["msg"] === "request");
  assert.equal(requests.length, 2, "the probe is not logged at info; no 'incoming request' lines");
  assert.equal(lines.filter((l) => l["msg"] === "incoming request" || l["msg"] === "request completed").length, 0);
  const [first, missing] = requests;
  assert.equal(first!["method"], "GET");
  assert.equal(first!["route"], "/api/v1/org/:org_id/position");
  assert.equal(first!["url"], "/api/v1/org/6d3f/position?state=active&token=%3Credacted%3E");
  assert.equal(first!["status"], 200);
  assert.equal(first!["service"], "api");
  assert.equal(typeof first!["ms"], "number");
  assert.equal(typeof first!["request_id"], "string");
  assert.equal(missing!["route"], null);
  assert.equal(missing!["status"], 404);

  const debug = (await serveOnce("json", "debug"))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const probe = debug.find((l) => l["msg"] === "request" && l["route"] === "/healthz");
  assert.equal(probe?.["level"], 20, "health checks log at debug");
});

test("pretty: one readable line per request, key=value for other events, no JSON", async () => {
  const text = await serveOnce("pretty", "info");
  const lines = text.trim().split("\n");
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /^\d\d:\d\d:\d\d INFO {2}api {2}GET \/api\/v1\/org\/:org_id\/position 200 \d+(\.\d)?ms$/);
  assert.match(lines[1]!, /^\d\d:\d\d:\d\d INFO {2}api {2}GET \/nowhere 404 \d+(\.\d)?ms$/);
  const event = prettyLine(
    JSON.stringify({
      level: 30,
      time: Date.parse("2026-11-25T10:11:12Z"),
      service: "proxy",
      component: "sync",
      msg: "sync run succeeded",
      created: 3,
      ms: 40,
      reason: "a b",
    }),
    false,
  );
  assert.equal(event, '10:11:12 INFO  proxy/sync  sync run succeeded created=3 ms=40 reason="a b"\n');
  const failure = prettyLine(
    JSON.stringify({ level: 50, time: 0, msg: "boom", err: { message: "bad", stack: "Error: bad\n    at x" } }),
    false,
  );
  assert.equal(failure, "00:00:00 ERROR  boom\nError: bad\n    at x\n");
});

test("LOG_FORMAT auto: pretty on a terminal, JSON otherwise", () => {
  assert.equal(resolveLogFormat("auto", { isTTY: true }), "pretty");
  assert.equal(resolveLogFormat("auto", { isTTY: false }), "json");
  assert.equal(resolveLogFormat("auto", {}), "json");
  assert.equal(resolveLogFormat("json", { isTTY: true }), "json");
  assert.equal(resolveLogFormat("pretty", {}), "pretty");
});
