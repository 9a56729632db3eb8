import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Candidate, Interview, Position } from "../../../src/client/index.js";
import { oneLineError, useDemoCli } from "./cli-harness.js";

/** positions, candidates (incl. bulk files) and interview commands: tables, --json, exit codes. */
describe("CLI: positions, candidates, interview", () => {
  const demo = useDemoCli();

  test("positions create → show → update → list, as tables and as JSON", async () => {
    const created = await demo.cli.run([
      "positions",
      "create",
      "--name",
      "Backend Engineer",
      "--min-score",
      "70",
      "--accepted-languages",
      "en,de",
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^name\s+Backend Engineer$/m);
    assert.match(created.stdout, /^state\s+draft$/m);
    assert.match(created.stdout, /^accepted_languages\s+en, de$/m);
    const id = /^id\s+(\S+)$/m.exec(created.stdout)![1]!;

    const shown = await demo.cli.json<Position>(["positions", "show", id]);
    assert.equal(shown.id, id);
    assert.equal(shown.min_score, 70);
    assert.deepEqual(shown.accepted_languages, ["en", "de"]);

    const updated = await demo.cli.json<Position>(["positions", "update", id, "--state", "active", "--department", "Engineering"]);
    assert.equal(updated.state, "active");
    assert.equal(updated.department, "Engineering");
    const cleared = await demo.cli.json<Position>(["positions", "update", id, "--department", "null"]);
    assert.equal(cleared.department, null);
    assert.equal(cleared.state, "active");

    const table = await demo.cli.run(["positions", "list", "--state", "active"]);
    assert.equal(table.code, 0, table.stderr);
    const [header, rule, ...rows] = table.stdout.trimEnd().split("\n");
    assert.match(header!, /^ID\s+NAME\s+STATE\s+DEPARTMENT\s+LOCATION\s+MIN SCORE\s+UPSTREAM JOB$/);
    assert.match(rule!, /^-+( +-+)+$/);
    assert.ok(rows.some((r) => r.startsWith(id) && r.includes("Backend Engineer")));
    const all = await demo.cli.json<Position[]>(["positions", "list"]);
    assert.ok(all.some((p) => p.id === id));
  });

  test("positions: bad input is caught before sending (exit 2) or reported by the server (exit 5); unknown id exit 4", async () => {
    const notNumber = await demo.cli.run(["positions", "create", "--name", "X", "--min-score", "seventy"]);
    assert.equal(notNumber.code, 2);
    assert.equal(oneLineError(notNumber), 'hirebridge: --min-score: expected a whole number, got "seventy"');

    const missing = await demo.cli.run(["positions", "create"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /required option '--name <value>' not specified/);

    const badState = await demo.cli.run(["positions", "create", "--name", "X", "--state", "open"]);
    assert.equal(badState.code, 2);
    assert.match(badState.stderr, /Allowed choices are active, draft, inactive, template/);

    const tooLong = await demo.cli.run(["positions", "create", "--name", "N".repeat(101)]);
    assert.equal(tooLong.code, 5);
    assert.match(oneLineError(tooLong), /^hirebridge: Invalid request: body\.name: /);

    const nothing = await demo.cli.run(["positions", "update", "00000000-0000-4000-8000-000000000000"]);
    assert.equal(nothing.code, 2);
    assert.equal(oneLineError(nothing), "hirebridge: Nothing to change: give at least one field option (see --help)");

    const unknown = await demo.cli.run(["positions", "show", "00000000-0000-4000-8000-000000000000"]);
    assert.equal(unknown.code, 4);
    assert.match(oneLineError(unknown), /failed with 404: Position not found$/);
  });

  test("candidates add → list → show → update; a duplicate email is exit 5", async () => {
    const position = await demo.cli.json<Position>(["positions", "create", "--name", "Data Engineer"]);
    const ada = await demo.cli.json<Candidate>([
      "candidates",
      "add",
      position.id,
      "--name",
      "Ada Lovelace",
      "--email",
      "ada@example.com",
      "--phone",
      "+44 20 7946 0000",
      "--language",
      "en",
      "--tags",
      "python,sql",
    ]);
    assert.equal(ada.position_id, position.id);
    assert.deepEqual(ada.tags, ["python", "sql"]);

    const table = await demo.cli.run(["candidates", "list", position.id]);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^ID\s+NAME\s+EMAIL\s+STATE\s+INTERVIEW\s+SCORE\s+SHORT-LISTED\s+HIRED\s+TAGS$/m);
    assert.match(
      table.stdout,
      new RegExp(`^${ada.id}\\s+Ada Lovelace\\s+ada@example.com\\s+new\\s+not_started\\s+-\\s+no\\s+no\\s+python, sql$`, "m"),
    );

    const shown = await demo.cli.run(["candidates", "show", position.id, ada.id]);
    assert.match(shown.stdout, /^email\s+ada@example.com$/m);

    const updated = await demo.cli.json<Candidate>([
      "candidates",
      "update",
      position.id,
      ada.id,
      "--short-listed",
      "yes",
      "--state",
      "invited",
    ]);
    assert.equal(updated.short_listed, true);
    assert.equal(updated.state, "invited");

    const dup = await demo.cli.run([
      "candidates",
      "add",
      position.id,
      "--name",
      "Ada 2",
      "--email",
      "ada@example.com",
      "--phone",
      "+1",
      "--language",
      "en",
    ]);
    assert.equal(dup.code, 5);
    assert.match(oneLineError(dup), /failed with 409: /);
  });

  test("candidates bulk-update from CSV and from JSON, all or nothing", async () => {
    const position = await demo.cli.json<Position>(["positions", "create", "--name", "Bulk"]);
    const add = (n: number) =>
      demo.cli.json<Candidate>([
        "candidates",
        "add",
        position.id,
        "--name",
        `C${n}`,
        "--email",
        `c${n}@example.com`,
        "--phone",
        `+${n}`,
        "--language",
        "en",
      ]);
    const [a, b] = [await add(1), await add(2)];

    const csv = join(demo.cli.home, "changes.csv");
    await writeFile(csv, `id,state,short_listed,score,tags\n${a.id},invited,true,81,"x;y"\n${b.id},rejected,,,\n`);
    const res = await demo.cli.run(["candidates", "bulk-update", position.id, csv]);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stderr, "Updated 2 candidate(s).\n");
    const after = await demo.cli.json<Candidate[]>(["candidates", "list", position.id]);
    const byId = new Map(after.map((c) => [c.id, c]));
    assert.deepEqual(
      [byId.get(a.id)!.state, byId.get(a.id)!.short_listed, byId.get(a.id)!.score, byId.get(a.id)!.tags],
      ["invited", true, 81, ["x", "y"]],
    );
    assert.deepEqual([byId.get(b.id)!.state, byId.get(b.id)!.short_listed], ["rejected", false], "empty cells change nothing");

    const json = join(demo.cli.home, "changes.json");
    await writeFile(json, JSON.stringify([{ id: b.id, hired: true }]));
    const fromJson = await demo.cli.json<Candidate[]>(["candidates", "bulk-update", position.id, json]);
    assert.equal(fromJson[0]!.hired, true);

    // One unknown id: nothing changes, exit 4.
    await writeFile(
      json,
      JSON.stringify([
        { id: a.id, state: "passed" },
        { id: "00000000-0000-4000-8000-000000000000", state: "passed" },
      ]),
    );
    const partial = await demo.cli.run(["candidates", "bulk-update", position.id, json]);
    assert.equal(partial.code, 4, partial.stderr);
    assert.equal((await demo.cli.json<Candidate>(["candidates", "show", position.id, a.id])).state, "invited");

    await writeFile(csv, `id,colour\n${a.id},blue\n`);
    const badColumn = await demo.cli.run(["candidates", "bulk-update", position.id, csv]);
    assert.equal(badColumn.code, 2);
    assert.match(oneLineError(badColumn), /^hirebridge: CSV: unknown column\(s\) colour; known: /);

    await writeFile(csv, `id,score\n${a.id},high\n`);
    const badCell = await demo.cli.run(["candidates", "bulk-update", position.id, csv]);
    assert.equal(badCell.code, 2);
    assert.equal(oneLineError(badCell), 'hirebridge: CSV record 2, column score: expected a whole number, got "high"');

    const missingFile = await demo.cli.run(["candidates", "bulk-update", position.id, join(demo.cli.home, "nope.csv")]);
    assert.equal(missingFile.code, 2);
    assert.match(oneLineError(missingFile), /Cannot read .*nope\.csv: ENOENT/);
  });

  test("interview show: table and JSON", async () => {
    const position = await demo.cli.json<Position>(["positions", "create", "--name", "Interviewed"]);
    const c = await demo.cli.json<Candidate>([
      "candidates",
      "add",
      position.id,
      "--name",
      "Grace",
      "--email",
      "g@example.com",
      "--phone",
      "+1",
      "--language",
      "en",
    ]);
    const interview = await demo.cli.json<Interview>(["interview", "show", position.id, c.id]);
    assert.equal(interview.status, "not_started");
    assert.equal(interview.candidate, c.id);
    const table = await demo.cli.run(["interview", "show", position.id, c.id]);
    assert.match(table.stdout, /^status\s+not_started$/m);
    assert.match(table.stdout, /^interview_link\s+http/m);
  });
});
