import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { IntegrationSyncs, SyncRun } from "../../../src/client/index.js";
import { startEmbeddedStack, type EmbeddedStack } from "../client/embedded-stack.js";
import { Cli, oneLineError } from "./cli-harness.js";

type Envelope<T> = { status: string; data: T };

/** integrations, ats and sync commands against the embedded stack (proxy → sandbox, real job queue). */
describe("CLI: integrations, ATS reads, sync", () => {
  let env: EmbeddedStack;
  let cli: Cli;
  let integration: string;
  before(async () => {
    env = await startEmbeddedStack();
    integration = env.demo.integrationId;
    cli = await Cli.create(env);
    await cli.login("demo", env.demo.password);
  });
  after(async () => {
    await cli.dispose();
    await env.close();
  });

  const sandbox = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${env.sandboxOrigin}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
    assert.ok(res.ok, `${method} ${path}: ${res.status}`);
    return (await res.json()) as Record<string, unknown>;
  };

  test("integrations show: a readable record, the API's answer with --json, --fresh", async () => {
    const table = await cli.run(["integrations", "show", integration]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, new RegExp(`^id\\s+${integration}$`, "m"));
    assert.match(table.stdout, /^tool\s+Greenhouse \(greenhouse\)$/m);
    assert.match(table.stdout, new RegExp(`^origin id\\s+${env.demo.orgId}$`, "m"));
    assert.match(table.stdout, /^display name\s+\S/m);
    assert.match(table.stdout, /^health\s+ok$/m);
    const json = await cli.json<Envelope<{ id: string; status: string }>>(["integrations", "show", integration, "--fresh"]);
    assert.equal(json.status, "success");
    assert.equal(json.data.id, integration);
    const unknown = await cli.run(["integrations", "show", "greenhouse:doesNotExist"]);
    assert.equal(unknown.code, 4);
    oneLineError(unknown);
  });

  test("connect-link, then activate what the end user connected", async () => {
    const linked = await cli.run([
      "integrations",
      "connect-link",
      "--end-user-email",
      "it@acme.example",
      "--end-user-organization-name",
      "Acme",
      "--integration-category",
      "ATS",
    ]);
    assert.equal(linked.code, 0, linked.stderr);
    const link = linked.stdout.trim();
    assert.match(link, new RegExp(`^${env.sandboxOrigin}/connect/link/`));
    const confirmed = await fetch(`${link}/confirm`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ tool_id: "lever" }),
    });
    const { activation_token, integration_id } = (await confirmed.json()) as { activation_token: string; integration_id: string };
    // Tokens are random base64url: one in 64 starts with '-', which goes after `--` as for any CLI.
    const activated = await cli.run(["integrations", "activate", "--", activation_token]);
    assert.equal(activated.code, 0, activated.stderr);
    assert.match(activated.stdout, new RegExp(`^id\\s+${integration_id}$`, "m"));
    assert.match(activated.stdout, /^tool\s+lever$/m);

    const listed = await cli.run(["integrations", "list"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^NAME\s+ID\s+TOOL\s+CATEGORY\s+STATE\s+HEALTH/m);
    // The organisation named in the connect flow is the integration's name, printed with its id.
    assert.match(listed.stdout, new RegExp(`^Acme\\s+${integration_id}\\s+lever\\s+ATS\\s+\\S+\\s+ok\\s`, "m"));
    const json = await cli.json<{ id: string; display_name: string; pending_write_backs: number }[]>(["integrations", "list"]);
    assert.ok(json.some((i) => i.id === integration_id && i.display_name === "Acme" && i.pending_write_backs === 0));

    const renamed = await cli.run(["integrations", "rename", integration_id, "Acme (EU)"]);
    assert.equal(renamed.code, 0, renamed.stderr);
    assert.match(renamed.stdout, /^display name\s+Acme \(EU\)$/m);
    assert.match(renamed.stdout, /^health\s+ok$/m);
    const cleared = await cli.json<{ display_name: string }>(["integrations", "rename", integration_id, "--clear"]);
    assert.equal(cleared.display_name, "Acme");
    const both = await cli.run(["integrations", "rename", integration_id, "X", "--clear"]);
    assert.equal(both.code, 2);
    assert.equal(oneLineError(both), "hirebridge: Give a name, or --clear (not both)");

    const missing = await cli.run(["integrations", "connect-link", "--end-user-email", "it@acme.example"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /required option '--end-user-organization-name <value>' not specified/);
  });

  test("relink prints the link", async () => {
    const res = await cli.run(["integrations", "relink", integration, "--link-type", "MAGIC_LINK", "--language", "de"]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^https?:\/\/\S+\n$/);
  });

  test("fields, passthrough, custom-fields and map-field", async () => {
    const fields = await cli.json<{ id: string; key: string; is_passthrough_enabled: boolean }[]>(["integrations", "fields", integration]);
    assert.ok(fields.length > 0);
    const field = fields.find((f) => !f.is_passthrough_enabled)!;
    const on = await cli.run(["integrations", "passthrough", integration, field.id, "on"]);
    assert.equal(on.code, 0, on.stderr);
    assert.match(on.stdout, new RegExp(`^${field.id}\\s.*\\son$`, "m"));
    const bad = await cli.run(["integrations", "passthrough", integration, field.id, "maybe"]);
    assert.equal(bad.code, 2);
    assert.equal(oneLineError(bad), 'hirebridge: Expected on or off, got "maybe"');

    const table = await cli.run(["integrations", "fields", integration]);
    assert.match(table.stdout, /^ID\s+MODEL\s+KEY\s+TYPE\s+LABEL\s+PASSTHROUGH$/m);

    const custom = await cli.json<{ id: string }[]>(["integrations", "custom-fields", integration]);
    const mapped = await cli.run(["integrations", "map-field", integration, custom[0]!.id, field.id]);
    assert.equal(mapped.code, 0, mapped.stderr);
    // MAPPED TO names the field's key, FIELD ID its id whole (a column of its own, never cut).
    assert.match(mapped.stdout, /^ID\s+MODEL\s+KEY\s+LABEL\s+MAPPED TO\s+FIELD ID$/m);
    assert.match(mapped.stdout, new RegExp(`\\s${field.id}$`, "m"));
    const list = await cli.run(["integrations", "custom-fields", integration]);
    assert.match(list.stdout, new RegExp(`^${custom[0]!.id}\\s.*\\s${field.id}$`, "m"));
  });

  test("delete asks first: no or no answer keeps it (exit 1), yes deletes it, --yes does not ask", async () => {
    const a = (await sandbox("POST", "/sandbox/integrations", { org_id: env.demo.orgId, tool: "greenhouse", applications: 1 }))[
      "id"
    ] as string;
    await cli.json(["integrations", "show", a]); // the proxy learns it belongs to the demo org
    const declined = await cli.run(["integrations", "delete", a], { stdin: "n\n" });
    assert.equal(declined.code, 1);
    assert.match(declined.stderr, new RegExp(`^Delete integration ${a}\\? This cannot be undone\\. \\[y/N\\] `));
    assert.match(declined.stderr, /hirebridge: Not deleted: not confirmed \(pass --yes to skip the question\)\n$/);
    const silent = await cli.run(["integrations", "delete", a]);
    assert.equal(silent.code, 1);
    assert.equal((await cli.run(["integrations", "show", a, "--fresh"])).code, 0, "still there");

    const confirmed = await cli.run(["integrations", "delete", a], { stdin: "y\n" });
    assert.equal(confirmed.code, 0, confirmed.stderr);
    assert.equal(confirmed.stdout, `Deleted integration ${a}.\n`);
    assert.equal((await cli.run(["integrations", "show", a, "--fresh"])).code, 4);

    const b = (await sandbox("POST", "/sandbox/integrations", { org_id: env.demo.orgId, tool: "greenhouse", applications: 1 }))[
      "id"
    ] as string;
    await cli.json(["integrations", "show", b]);
    const forced = await cli.json<Envelope<unknown>>(["integrations", "delete", b, "--yes"]);
    assert.equal(forced.status, "success");
  });

  const ATS_KINDS = ["jobs", "applications", "stages", "users", "offers", "interviews", "tags", "rejection-reasons"];
  const counts = new Map<string, number>();

  test("ats: every record kind as JSON, following pages to the end", async () => {
    for (const kind of ATS_KINDS) {
      const all = await cli.json<{ id: string }[]>(["ats", kind, "-i", integration, "--limit", "0", "--page-size", "7"]);
      assert.ok(Array.isArray(all), kind);
      assert.equal(new Set(all.map((r) => r.id)).size, all.length, `${kind}: no record twice across pages`);
      counts.set(kind, all.length);
    }
  });

  test("ats: every record kind as a table, at most --limit rows", async () => {
    for (const kind of ATS_KINDS) {
      const table = await cli.run(["ats", kind, "--integration", integration, "--limit", "2"]);
      assert.equal(table.code, 0, `${kind}: ${table.stderr}`);
      const lines = table.stdout.trimEnd().split("\n");
      if (counts.get(kind) === 0) {
        assert.deepEqual(lines, ["(none)"], kind);
        continue;
      }
      assert.match(lines[0]!, /^ID\s+/, kind);
      assert.equal(lines.length, 2 + Math.min(2, counts.get(kind) ?? 2), `${kind}: header, rule and at most --limit rows`);
    }
  });

  test("ats: filters, the integration from the environment, and the proxy's validation", async () => {
    const applications = await cli.json<{ id: string; job: { id: string } | null }[]>([
      "ats",
      "applications",
      "-i",
      integration,
      "--limit",
      "0",
    ]);
    assert.equal(applications.length, 40);
    const jobId = applications[0]!.job!.id;
    const filtered = await cli.json<{ job: { id: string } | null }[]>([
      "ats",
      "applications",
      "-i",
      integration,
      "--job-ids",
      jobId,
      "--limit",
      "0",
    ]);
    assert.ok(filtered.length > 0 && filtered.every((a) => a.job?.id === jobId));

    const noIntegration = await cli.run(["ats", "jobs"]);
    assert.equal(noIntegration.code, 2);
    assert.equal(oneLineError(noIntegration), "hirebridge: --integration is needed (or set HIREBRIDGE_INTEGRATION_ID)");
    const fromEnv = await cli.run(["--json", "ats", "tags"], { env: { HIREBRIDGE_INTEGRATION_ID: integration } });
    assert.equal(fromEnv.code, 0, fromEnv.stderr);
    const tooBig = await cli.run(["ats", "jobs", "-i", integration, "--page-size", "999"]);
    assert.equal(tooBig.code, 5);
    assert.match(oneLineError(tooBig), /^hirebridge: Invalid request: query\.page_size: /);
  });

  test("sync start follows the runs to the end with progress, then sync status lists them", async () => {
    const res = await cli.run(["sync", "start", integration, "--interval", "0.2"]);
    assert.equal(res.code, 0, res.stderr);
    const progress = res.stderr.trimEnd().split("\n");
    assert.equal(progress[0], `Sync of ${integration} started.`);
    assert.match(progress.at(-1)!, /^jobs succeeded: \d+ page\(s\).* \| applications succeeded: \d+ page\(s\)/);
    const [header, , ...rows] = res.stdout.trimEnd().split("\n");
    assert.match(header!, /^RUN\s+MODEL\s+TYPE\s+TRIGGER\s+STATE\s+PAGES\s+CREATED/);
    assert.equal(rows.length, 2);
    assert.ok(
      rows.every((r) => /\ssucceeded\s/.test(r)),
      rows.join("\n"),
    );

    const unknown = await cli.run(["sync", "start", "greenhouse:doesNotExist", "--interval", "0.2"]);
    assert.equal(unknown.code, 4, unknown.stderr);
    assert.doesNotMatch(unknown.stderr, /started/, "an unknown integration is never said to have started");
    oneLineError(unknown);

    const status = await cli.json<IntegrationSyncs>(["sync", "status", integration]);
    const byModel = (m: string) => status.items.find((r: SyncRun) => r.model === m); // newest first
    assert.equal(byModel("jobs")?.state, "succeeded");
    assert.equal(byModel("applications")?.state, "succeeded");
    assert.ok(byModel("jobs")!.created > 0, "the jobs became positions");

    const positions = await cli.json<{ upstream_integration_id: string | null }[]>(["positions", "list"]);
    assert.ok(positions.some((p) => p.upstream_integration_id === integration));
  });

  test("sync start --only JOBS --json, --no-follow, and sync upstream", async () => {
    const runs = await cli.json<SyncRun[]>(["sync", "start", integration, "--only", "jobs", "--interval", "0.2"]);
    assert.deepEqual(
      runs.map((r) => [r.model, r.state]),
      [["jobs", "succeeded"]],
    );
    const started = await cli.run(["sync", "start", integration, "--no-follow"]);
    assert.equal(started.code, 0, started.stderr);
    assert.match(started.stdout, /^Sync started: run [0-9a-f-]{36}\. Follow it with: hirebridge sync status /);
    const upstream = await cli.run(["sync", "upstream", integration, "--type", "full"]);
    assert.equal(upstream.code, 0, upstream.stderr);
    assert.match(upstream.stdout, /^Upstream FULL sync (was already queued|queued) \(sync id \S+\)\.\n$/);
    const badType = await cli.run(["sync", "start", integration, "--only", "offers"]);
    assert.equal(badType.code, 2);
    assert.equal(oneLineError(badType), "hirebridge: --only must be JOBS or APPLICATIONS");
  });

  test("activity: the trail with names and ids, filtered; a bad filter is a usage error; retry of what is not failed is refused", async () => {
    await cli.run(["sync", "start", integration, "--only", "jobs", "--interval", "0.2"]);
    const table = await cli.run(["activity", integration, "--kind", "sync_run", "--status", "succeeded", "--limit", "3"]);
    assert.equal(table.code, 0, table.stderr);
    const [header, , ...rows] = table.stdout.trimEnd().split("\n");
    assert.match(header!, /^AT\s+KIND\s+STATUS\s+WHAT\s+ERROR\s+TRIES\s+ID$/);
    assert.ok(rows.length > 0 && rows.length <= 3, table.stdout);
    assert.ok(
      rows.every((r) => /^\S+Z\s+sync_run\s+succeeded\s+(Full|Incremental) sync of (jobs|applications) .*\s[0-9a-f-]{36}$/.test(r)),
      table.stdout,
    );
    const json = await cli.json<{ kind: string; summary: string }[]>([
      "activity",
      "list",
      integration,
      "--kind",
      "sync_run",
      "--limit",
      "2",
    ]);
    assert.ok(json.length >= 1 && json.length <= 2, JSON.stringify(json));
    assert.ok(json.every((i) => i.kind === "sync_run"));
    const bad = await cli.run(["activity", integration, "--kind", "syncs"]);
    assert.equal(bad.code, 2);
    assert.equal(
      oneLineError(bad),
      "hirebridge: --kind takes event, sync_run, write_back, upstream_call, assessment_order (comma-separated); not syncs",
    );
    const unknown = await cli.run(["activity", "retry", "00000000-0000-4000-8000-000000000000", integration]);
    assert.equal(unknown.code, 4);
    oneLineError(unknown);
  });
});
