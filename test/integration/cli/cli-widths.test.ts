import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Hirebridge, type Candidate, type Position, type ServiceAccountCreated } from "../../../src/client/index.js";
import { type AssessmentEnv, assessmentEnv, eventually, placeOrder } from "../client/assessment-env.js";
import { startEmbeddedStack, type EmbeddedStack } from "../client/embedded-stack.js";
import { startReceiver, type Receiver } from "../webhooks-out/receiver.js";
import { Cli, type CliResult } from "./cli-harness.js";

/** Every id in an answer: `id`, `…_id`, `sub` string values and `…_ids` arrays, at any depth. */
function idsIn(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) for (const v of value) idsIn(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const idKey = k === "id" || k === "sub" || k.endsWith("_id");
      if (idKey && typeof v === "string" && v.length >= 8) out.add(v);
      else if (k.endsWith("_ids") && Array.isArray(v)) {
        for (const x of v) if (typeof x === "string" && x.length >= 8) out.add(x);
      } else idsIn(v, out);
    }
  }
  return out;
}

/** The rows of a list answer: an array, or the first array under items, packages, results or data. */
function rowsOf(json: unknown): Record<string, unknown>[] {
  if (Array.isArray(json)) return json as Record<string, unknown>[];
  const o = json as Record<string, unknown>;
  for (const k of ["items", "packages", "results", "data"]) if (o?.[k] !== undefined) return rowsOf(o[k]);
  throw new Error(`not a list: ${JSON.stringify(json).slice(0, 200)}`);
}

/** The values of `key` of each row of a list answer. */
const each = (key: string) => (json: unknown) => rowsOf(json).map((r) => String(r[key]));

/**
 * The text a command printed for people, checked at `width`: no line longer, no id cut (a cell cut
 * with an ellipsis that starts an id), and every id `shown` present whole.
 */
function checkFits(what: string, res: CliResult, width: number, ids: Set<string>, shown: string[]): void {
  assert.equal(res.code, 0, `${what}: ${res.stderr}`);
  for (const line of res.stdout.split("\n"))
    assert.ok(line.length <= width, `${what} at ${width}: a line of ${line.length}:\n${res.stdout}`);
  const cut = res.stdout
    .split(/[\s(),]+/)
    .filter((t) => t.endsWith("…") && t.length >= 5)
    .filter((t) => [...ids].some((id) => id.startsWith(t.slice(0, -1)) && id !== t));
  assert.deepEqual(cut, [], `${what} at ${width}: ids cut:\n${res.stdout}`);
  const missing = shown.filter((id) => !res.stdout.includes(id));
  assert.deepEqual(missing, [], `${what} at ${width}: ids not shown whole:\n${res.stdout}`);
}

/** Each list-style command of the CLI, through the real bin, at 80 and 120 columns (issue 42). */
describe("CLI: every list command at 80 and 120 columns", () => {
  let env: EmbeddedStack;
  let cli: Cli;
  let a: AssessmentEnv;
  let rx: Receiver;
  let position: Position;
  let endpointId: string;

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
    await cli.json(["assessment", "packages", "publish", "-i", a.integrationId]);
    const order = await placeOrder(env, a, a.templateId);
    await eventually("the order received", async () => {
      const rows = await cli.json<{ order_id: string }[]>(["assessment", "orders", "list", "-i", a.integrationId]);
      return rows.find((r) => r.order_id === order.id);
    });

    rx = await startReceiver();
    const endpoint = await cli.json<{ id: string; secret: string }>([
      "webhooks",
      "create",
      "--url",
      rx.url,
      "--events",
      "position.created",
      "--description",
      "Delivers new positions to the interview runner of the recruiting team",
    ]);
    endpointId = endpoint.id;
    rx.secrets.push(endpoint.secret);

    position = await cli.json<Position>([
      "positions",
      "create",
      "--name",
      "Principal Platform Engineer, Data Infrastructure and Reliability",
      "--department",
      "Engineering and Research",
      "--location",
      "Remote, anywhere in Europe",
      "--min-score",
      "60",
    ]);
    await rx.waitFor((d) => d.length >= 1);
    const people = [
      ["Maximiliane Fitzgerald-Okonkwo", "maximiliane.fitzgerald-okonkwo@example.com"],
      ["Grace Hopper", "grace@example.com"],
    ];
    const added: Candidate[] = [];
    for (const [name, email] of people) {
      added.push(
        await cli.json<Candidate>([
          "candidates",
          "add",
          position.id,
          "--name",
          name!,
          "--email",
          email!,
          "--phone",
          "+44 20 7946 0000",
          "--language",
          "en",
          "--tags",
          "python,sql,leadership,distributed-systems",
        ]),
      );
    }
    const graded = await cli.run(["interview", "result", position.id, added[0]!.id, "--score", "87"]);
    assert.equal(graded.code, 0, graded.stderr);
    await cli.json<ServiceAccountCreated>([
      "service-accounts",
      "create",
      "--name",
      "interview runner of the recruiting team",
      "--scopes",
      "recruiting",
    ]);
    const sync = await cli.run(["sync", "start", env.demo.integrationId]);
    assert.equal(sync.code, 0, sync.stderr);
  });
  after(async () => {
    await rx?.close();
    await cli?.dispose();
    await env?.close();
  });

  test("a test renders each list command at 80 and 120 columns: no line longer, every id whole", async () => {
    const integration = env.demo.integrationId;
    const admin = { HIREBRIDGE_ADMIN_PASSWORD: env.adminPassword };
    const commands: { args: string[]; shown?: (json: unknown) => string[]; env?: Record<string, string> }[] = [
      { args: ["positions", "list"], shown: each("id") },
      { args: ["candidates", "list", position.id], shown: each("id") },
      { args: ["integrations", "list"], shown: each("id") },
      { args: ["integrations", "fields", integration], shown: (j) => each("id")(j).slice(0, 5) },
      { args: ["integrations", "custom-fields", integration], shown: each("id") },
      ...["jobs", "applications", "stages", "users", "offers", "interviews", "tags"].map((kind) => ({
        args: ["ats", kind, "-i", integration, "--limit", "5"],
        shown: each("id"),
      })),
      { args: ["sync", "status", integration] },
      { args: ["sync", "events", "--status", "processed"], shown: each("id") },
      { args: ["activity", integration, "--limit", "20"], shown: each("id") },
      { args: ["audit", "list"] },
      { args: ["service-accounts", "list"], shown: each("client_id") },
      { args: ["assessment", "packages", "list", "-i", a.integrationId], shown: each("id") },
      { args: ["assessment", "orders", "list", "-i", a.integrationId], shown: each("order_id") },
      { args: ["webhooks", "list"], shown: each("id") },
      { args: ["webhooks", "deliveries", endpointId], shown: each("message_id") },
      { args: ["webhooks", "event-types"] },
      { args: ["retention", "show"] },
      { args: ["admin", "users", "list"], shown: each("id"), env: admin },
    ];
    for (const { args, shown, env: extra } of commands) {
      const what = args.join(" ");
      const json = await cli.json(args, { env: extra ?? {} });
      const ids = idsIn(json);
      const must = shown ? shown(json) : [];
      if (shown) assert.ok(must.length > 0, `${what} lists something`);
      for (const width of [80, 120]) {
        const res = await cli.run(args, { env: { ...extra, COLUMNS: String(width) } });
        checkFits(what, res, width, ids, must);
      }
    }
  });

  test("candidates list shows each candidate's interview status and score", async () => {
    const candidates = await cli.json<Candidate[]>(["candidates", "list", position.id]);
    const [graded, waiting] = [candidates.find((c) => c.score === 87)!, candidates.find((c) => c.score !== 87)!];
    assert.ok(graded && waiting, JSON.stringify(candidates));
    const res = await cli.run(["candidates", "list", position.id], { env: { COLUMNS: "120" } });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^ID +NAME +(EMAIL +)?STATE +INTERVIEW +SCORE\b/);
    assert.match(res.stdout, new RegExp(`^${graded.id} +Maximiliane Fitzgerald\\S* .* graded +87\\b`, "m"));
    assert.match(res.stdout, new RegExp(`^${waiting.id} +Grace Hopper .* not_started +-\\s`, "m"));
    // --json stays the API's answer (no interview field added).
    assert.ok(candidates.every((c) => !("interview" in c)));
  });

  test("a table that cannot keep its ids whole at 80 columns prints one record per block; --wide prints the whole table", async () => {
    const integration = env.demo.integrationId;
    const items = await cli.json<{ id: string; summary: string }[]>(["activity", integration, "--limit", "5"]);
    assert.ok(items.length >= 2);
    const narrow = await cli.run(["activity", integration, "--limit", "5"], { env: { COLUMNS: "80" } });
    assert.equal(narrow.code, 0, narrow.stderr);
    const blocks = narrow.stdout.trimEnd().split("\n\n");
    assert.equal(blocks.length, items.length, narrow.stdout);
    blocks.forEach((block, i) => {
      assert.match(block, /^At: +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
      assert.match(block, new RegExp(`^ID: +${items[i]!.id}$`, "m"));
      // WHAT whole where the line has room for it (a table would have cut it to a few characters).
      const what = /^What: +(.*)$/m.exec(block)?.[1] ?? "";
      assert.ok(items[i]!.summary.startsWith(what.replace(/…$/, "")) && what.length >= Math.min(items[i]!.summary.length, 60), block);
    });
    assert.match(narrow.stderr, /one record per block.*--wide/);
    // --wide: the table, header first, as wide as its cells; the ids in their column.
    const wide = await cli.run(["--wide", "activity", integration, "--limit", "5"], { env: { COLUMNS: "80" } });
    assert.equal(wide.code, 0, wide.stderr);
    const lines = wide.stdout.trimEnd().split("\n");
    assert.match(lines[0]!, /^AT +KIND +STATUS +WHAT +ERROR +TRIES +ID$/);
    assert.ok(Math.max(...lines.map((l) => l.length)) > 80);
    for (const item of items)
      assert.ok(
        lines.some((l) => l.endsWith(item.id)),
        wide.stdout,
      );
    assert.equal(wide.stderr, "");
  });
});
