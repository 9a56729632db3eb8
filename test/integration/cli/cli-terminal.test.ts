import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, test } from "node:test";
import type { Candidate, Interview, IntegrationSyncs, Position } from "../../../src/client/index.js";
import { renderTable } from "../../../src/cli/output.js";
import { freePort } from "../../helpers/ports.js";
import { oneLineError, useDemoCli } from "./cli-harness.js";

const bash = promisify(execFile);
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string }).version;
const longest = (text: string) => Math.max(...text.split("\n").map((l) => l.length));

/** What a newcomer's terminal needs: --version, completion, tables that fit, recording a result, reset. */
describe("CLI in a terminal", () => {
  const demo = useDemoCli();

  test("--version and -V print the package's version", async () => {
    for (const flag of ["--version", "-V"]) {
      const res = await demo.cli.run([flag]);
      assert.equal(res.code, 0, res.stderr);
      assert.equal(res.stdout, `${VERSION}\n`);
      assert.equal(res.stderr, "");
    }
  });

  test("the bin started by an older Node (npm link, a system node) hands over to the pinned Node 24", async (t) => {
    const older = ["/usr/bin/node", "/usr/local/bin/node"].find((p) => {
      if (!existsSync(p)) return false;
      const major = Number(execFileSync(p, ["-p", "process.versions.node.split('.')[0]"]).toString());
      return major < 24;
    });
    if (!older) return t.skip("no Node.js older than 24 on this machine");
    const { stdout, stderr } = await bash(older, [join(ROOT, "bin", "hirebridge.js"), "--version"]);
    assert.equal(stdout, `${VERSION}\n`);
    assert.equal(stderr, "", "no engine warning");
  });

  test("npx hirebridge in the checkout prints no engine warning (devEngines names the Node that runs npm)", async (t) => {
    const npx = ["/usr/bin/npx", "/usr/local/bin/npx"].find((p) => existsSync(p));
    if (!npx) return t.skip("no npx on this machine");
    const { stdout, stderr } = await bash(npx, ["--no-install", "hirebridge", "--version"], {
      cwd: ROOT,
      env: { PATH: process.env["PATH"] ?? "", HOME: demo.cli.home },
    });
    assert.equal(stdout, `${VERSION}\n`);
    assert.doesNotMatch(stderr, /EBADENGINE|Unsupported engine/);
  });

  test("completion bash: a script bash sources, completing commands, subcommands and options", async () => {
    const res = await demo.cli.run(["completion", "bash"]);
    assert.equal(res.code, 0, res.stderr);
    const script = join(demo.cli.home, "hirebridge.bash");
    await writeFile(script, res.stdout);
    const complete = async (...words: string[]) => {
      const { stdout } = await bash("bash", [
        "-c",
        `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _hirebridge; echo "\${COMPREPLY[*]}"`,
      ]);
      return stdout.trim().split(" ");
    };
    assert.deepEqual(await complete("hirebridge", "pos"), ["positions"]);
    assert.deepEqual(await complete("hirebridge", "interview", ""), ["show", "result", "correct", "--help"]);
    // Arguments (ids) are skipped over: options of `interview result` still complete after them.
    assert.deepEqual(await complete("hirebridge", "interview", "result", "3f0c", "9a1b", "--s"), ["--status", "--score"]);
    assert.deepEqual(await complete("hirebridge", "--json", "sync", "st"), ["start", "status"]);

    const zsh = await demo.cli.run(["completion", "zsh"]);
    assert.equal(zsh.code, 0, zsh.stderr);
    assert.match(zsh.stdout, /^#compdef hirebridge\n/);
    assert.match(zsh.stdout, /bashcompinit/);
    assert.match(zsh.stdout, /complete -F _hirebridge hirebridge/);

    const fish = await demo.cli.run(["completion", "fish"]);
    assert.equal(fish.code, 2);
    assert.equal(oneLineError(fish), "hirebridge: The shell must be bash or zsh");
  });

  test("at 80 columns, tables (sync status with its write-backs, positions) fit the width", async () => {
    const integration = demo.env.demo.integrationId;
    const sync = await demo.cli.run(["sync", "start", integration]);
    assert.equal(sync.code, 0, sync.stderr);
    const wide = await demo.cli.run(["sync", "status", integration]);
    assert.equal(wide.code, 0, wide.stderr);
    assert.ok(longest(wide.stdout) > 80, "without a width the table is wider than 80");

    const status = await demo.cli.run(["sync", "status", integration], { env: { COLUMNS: "80" } });
    assert.equal(status.code, 0, status.stderr);
    assert.ok(longest(status.stdout) <= 80, status.stdout);
    // Optional columns (run id, trigger, pages…) leave; what remains is whole.
    assert.match(status.stdout, /^Sync runs\nMODEL +TYPE +STATE +CREATED +UPDATED +FAILED +STARTED\n/);
    assert.match(status.stdout, /^applications +FULL +succeeded +\d+ +\d+ +0 +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
    assert.match(status.stdout, /\nWrite-backs \(interview results sent to the ATS\)\n/);
    const positions = await demo.cli.run(["positions", "list"], { env: { COLUMNS: "80" } });
    assert.equal(positions.code, 0, positions.stderr);
    assert.ok(longest(positions.stdout) <= 80, positions.stdout);

    // The same rows unbounded with --json: the API's answer, whole.
    const json = await demo.cli.json<IntegrationSyncs>(["sync", "status", integration], { env: { COLUMNS: "80" } });
    assert.ok(json.items.length >= 2);
  });

  test("at 80 columns every id a table shows is whole, and the next command takes it", async () => {
    const integration = demo.env.demo.integrationId;
    assert.equal((await demo.cli.run(["integrations", "show", integration])).code, 0, "the demo integration is recorded once used");
    const position = await demo.cli.json<Position>([
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
    await demo.cli.json<Candidate>([
      "candidates",
      "add",
      position.id,
      "--name",
      "Maximiliane Fitzgerald-Okonkwo",
      "--email",
      "maximiliane.fitzgerald-okonkwo@example.com",
      "--phone",
      "+44 20 7946 0000",
      "--language",
      "en",
      "--tags",
      "python,sql,leadership,distributed-systems",
    ]);
    /** Every id in an answer: `id` and `…_id` string values, at any depth. */
    const idsIn = (value: unknown, out: string[] = []): string[] => {
      if (Array.isArray(value)) for (const v of value) idsIn(v, out);
      else if (value && typeof value === "object") {
        for (const [k, v] of Object.entries(value)) {
          if ((k === "id" || k.endsWith("_id")) && typeof v === "string" && v.length >= 8) out.push(v);
          else idsIn(v, out);
        }
      }
      return out;
    };
    const tables = [
      ["positions", "list"],
      ["candidates", "list", position.id],
      ["integrations", "list"],
      ["ats", "applications", "-i", integration, "--limit", "5"],
      ["ats", "jobs", "-i", integration, "--limit", "5"],
    ];
    for (const args of tables) {
      const text = await demo.cli.run(args, { env: { COLUMNS: "80" } });
      assert.equal(text.code, 0, text.stderr);
      assert.ok(longest(text.stdout) <= 80, `${args.join(" ")} fits 80 columns:\n${text.stdout}`);
      const ids = idsIn(await demo.cli.json(args));
      assert.ok(ids.length > 0, args.join(" "));
      // A cut id is a cell that is the start of one, then the ellipsis: none.
      const cut = text.stdout
        .split(/\s+/)
        .filter((cell) => cell.endsWith("…") && cell.length > 8)
        .filter((cell) => ids.some((id) => id.startsWith(cell.slice(0, -1))));
      assert.deepEqual(cut, [], `${args.join(" ")}: ids cut:\n${text.stdout}`);
      const rows = idsIn(await demo.cli.json(args)).filter((id) => text.stdout.includes(id));
      assert.ok(rows.length > 0, `${args.join(" ")} shows ids whole:\n${text.stdout}`);
    }
    // The first column of `candidates list` goes straight into the next command.
    const listed = await demo.cli.run(["candidates", "list", position.id], { env: { COLUMNS: "80" } });
    const candidateId = listed.stdout.split("\n")[2]!.split(/\s+/)[0]!;
    const interview = await demo.cli.run(["interview", "show", position.id, candidateId], { env: { COLUMNS: "80" } });
    assert.equal(interview.code, 0, interview.stderr);
  });

  test("positions show names the linked job, its integration and each stage with its id; sync status names the write-back's candidate at 80 columns", async () => {
    const integration = demo.env.demo.integrationId;
    const env = { COLUMNS: "80" };
    const linked = (await demo.cli.json<Position[]>(["positions", "list"])).filter(
      (p) => p.upstream_integration_id === integration && p.candidate_stage,
    );
    let position: Position | undefined;
    let candidates: Candidate[] = [];
    for (const p of linked) {
      candidates = await demo.cli.json<Candidate[]>(["candidates", "list", p.id]);
      if (candidates.length > 0) {
        position = p;
        break;
      }
    }
    assert.ok(position, "a synced position with candidates");
    const shown = await demo.cli.run(["positions", "show", position.id], { env });
    assert.equal(shown.code, 0, shown.stderr);
    const line = (field: string, text: string) =>
      text
        .split("\n")
        .find((l) => l.startsWith(`${field} `))
        ?.replace(/^\S+ +/, "");
    assert.equal(line("upstream_job_id_id", shown.stdout), `${position.upstream_job_id_id} (${position.name})`);
    const listed = await demo.cli.json<{ id: string; display_name: string }[]>(["integrations", "list"]);
    const displayName = listed.find((x) => x.id === integration)!.display_name;
    assert.equal(line("upstream_integration_id", shown.stdout), `${integration} (${displayName})`);
    // The sync stores the stage's id (issue 42); the CLI shows the stage's name with it.
    assert.match(line("candidate_stage", shown.stdout) ?? "", new RegExp(`^\\S.* \\(stage id ${position.candidate_stage}\\)$`, "i"));

    // Mapped by name, shown by name with its id; an id saved before shows the stage's name with it; an unknown name says so.
    const mapped = await demo.cli.run(
      [
        "positions",
        "update",
        position.id,
        "--auto-update-stages",
        "true",
        "--min-score",
        "60",
        "--passed-stage",
        "Offer",
        "--needs-reviewed-stage",
        "No such stage",
      ],
      { env },
    );
    assert.equal(mapped.code, 0, mapped.stderr);
    const offerId = /^Offer \(stage id (\S+)\)$/.exec(line("passed_stage", mapped.stdout) ?? "")?.[1];
    assert.ok(offerId, mapped.stdout);
    assert.equal(line("needs_reviewed_stage", mapped.stdout), "No such stage (not a stage of the job)");
    const byId = await demo.cli.run(["positions", "update", position.id, "--rejected-stage", offerId], { env });
    assert.equal(line("rejected_stage", byId.stdout), `Offer (stage id ${offerId})`);
    const json = await demo.cli.json<Position>(["positions", "show", position.id]);
    assert.deepEqual([json.passed_stage, json.rejected_stage], ["Offer", offerId], "--json keeps the stored values");

    // A write-back, then sync status at 80 columns: the candidate by name, the stage by name.
    const c = candidates[0]!;
    const graded = await demo.cli.run(["interview", "result", position.id, c.id, "--score", "90"]);
    assert.equal(graded.code, 0, graded.stderr);
    let status = "";
    for (let i = 0; i < 100 && !/ done /.test(status); i++) {
      status = (await demo.cli.run(["sync", "status", integration], { env })).stdout;
      await new Promise((r) => setTimeout(r, 300));
    }
    assert.ok(longest(status) <= 80, status);
    const writeBacks = status.slice(status.indexOf("Write-backs"));
    assert.match(writeBacks, /^CANDIDATE +POSITION +OUTCOME +STAGE +STATE/m);
    const row = writeBacks.split("\n").find((l) => l.includes(" done "));
    assert.ok(row?.startsWith(c.name.slice(0, 20)), `the candidate's name leads the row: ${row}`);
    assert.match(row ?? "", / passed +Offer +done /);
    assert.ok(row?.includes(position.name.slice(0, 12)), `the position's name follows: ${row}`);
    // The write-back's echo (incremental runs that changed nothing) is folded and counted, not listed.
    const echo = await demo.cli.json<IntegrationSyncs>(["sync", "status", integration, "--include-quiet"]);
    const quiet = echo.items.filter((r) => r.type === "DELTA" && r.state === "succeeded" && r.created + r.updated === 0);
    if (quiet.length > 0) assert.match(status, /^\d+ quiet runs? \(changed nothing\) folded in: QUIET; --include-quiet lists them$/m);
  });

  test("tables: droppable columns leave first, then the widest columns are cut", () => {
    type Row = { id: string; text: string; n: number };
    const columns = [
      { header: "ID", value: (r: Row) => r.id },
      { header: "TEXT", value: (r: Row) => r.text },
      { header: "N", value: (r: Row) => r.n },
      { header: "EXTRA", value: (r: Row) => r.n * 2, drop: 1 },
    ];
    const rows = [{ id: "a1", text: "x".repeat(40), n: 7 }];
    assert.equal(
      renderTable(columns, rows, 60),
      `ID  TEXT${" ".repeat(36)}  N  EXTRA\n--  ${"-".repeat(40)}  -  -----\na1  ${"x".repeat(40)}  7  14`,
    );
    // Too narrow for every whole cell: the droppable column leaves first, then TEXT is cut.
    assert.equal(renderTable(columns, rows, 30), `ID  TEXT${" ".repeat(19)}  N\n--  ${"-".repeat(23)}  -\na1  ${"x".repeat(22)}…  7`);
    assert.equal(renderTable(columns, rows, 20), "ID  TEXT           N\n--  -------------  -\na1  xxxxxxxxxxxx…  7");
    assert.equal(renderTable(columns, rows).split("\n")[2], `a1  ${"x".repeat(40)}  7  14`);
    // An id is never cut: the other columns give way, and leave from the right when even that is not enough.
    const uuid = "12149833-5f2e-4b8a-9c3d-0e1f2a3b4c5d";
    const withIds = [{ id: uuid, text: "x".repeat(40), n: 7 }];
    assert.equal(renderTable(columns, withIds, 50).split("\n")[2], `${uuid}  xxxxxxxx…  7`);
    assert.equal(renderTable(columns, withIds, 40).split("\n")[2], uuid);
  });

  test("interview result: grades a not-started interview in one command (completed, then graded)", async () => {
    const position = await demo.cli.json<Position>(["positions", "create", "--name", "CLI result", "--min-score", "60"]);
    const candidate = await demo.cli.json<Candidate>([
      "candidates",
      "add",
      position.id,
      "--name",
      "Grace",
      "--email",
      "grace@example.com",
      "--phone",
      "+1 555 0100",
      "--language",
      "en",
    ]);

    const noScore = await demo.cli.run(["interview", "result", position.id, candidate.id]);
    assert.equal(noScore.code, 2);
    assert.equal(oneLineError(noScore), "hirebridge: Grading needs --score");
    const badStatus = await demo.cli.run(["interview", "result", position.id, candidate.id, "--status", "not_started"]);
    assert.equal(badStatus.code, 2);

    const res = await demo.cli.run([
      "interview",
      "result",
      position.id,
      candidate.id,
      "--score",
      "85",
      "--feedback",
      "Clear and structured answers.",
    ]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^status +graded$/m);
    assert.match(res.stdout, /^score +85$/m);
    const interview = await demo.cli.json<Interview>(["interview", "show", position.id, candidate.id]);
    assert.equal(interview.status, "graded");
    assert.equal(interview.score, 85);
    assert.equal(interview.feedback, "Clear and structured answers.");
    assert.ok(interview.end_time && interview.graded_at);
    // The candidate follows the interview (score and feedback), as the API does for graded.
    const after = await demo.cli.json<Candidate>(["candidates", "show", position.id, candidate.id]);
    assert.equal(after.score, 85);
    assert.equal(after.feedback, "Clear and structured answers.");
    // A graded interview cannot be cancelled: the API's 409, one line.
    const again = await demo.cli.run(["interview", "result", position.id, candidate.id, "--status", "cancelled"]);
    assert.notEqual(again.code, 0);
    assert.match(oneLineError(again), /graded/);
  });

  test("reset: asks (nothing deleted without yes), --yes deletes both sides' storage, refuses DATABASE_URL and a running stack", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "hirebridge-reset-"));
    try {
      await mkdir(join(dataDir, "pglite"));
      await writeFile(join(dataDir, "pglite", "PG_VERSION"), "17");
      await mkdir(join(dataDir, "sandbox"));
      await writeFile(join(dataDir, "sandbox", "state.json"), "{}");
      await writeFile(join(dataDir, "keep.txt"), "not ours");
      const ports = { API_PORT: String(await freePort()), SANDBOX_PORT: String(await freePort()) };
      const envOf = (extra: Record<string, string> = {}) => ({ DATA_DIR: dataDir, ...ports, ...extra });

      const unconfirmed = await demo.cli.run(["reset"], { env: envOf(), stdin: "n\n" });
      assert.equal(unconfirmed.code, 1);
      assert.match(
        unconfirmed.stderr,
        /This deletes:\n {2}Hirebridge's database \(PGlite\): .*pglite\n {2}the upstream sandbox's state: .*sandbox\n/,
      );
      assert.ok(existsSync(join(dataDir, "pglite")) && existsSync(join(dataDir, "sandbox")));

      const postgres = await demo.cli.run(["reset", "--yes"], { env: envOf({ DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test" }) });
      assert.equal(postgres.code, 2);
      assert.match(oneLineError(postgres), /DATABASE_URL is set/);

      // The stack under test answers on its API port: reset refuses while it runs.
      const running = await demo.cli.run(["reset", "--yes"], { env: envOf({ API_PORT: new URL(demo.env.apiUrl).port }) });
      assert.equal(running.code, 1);
      assert.match(oneLineError(running), /The stack is running/);
      assert.ok(existsSync(join(dataDir, "pglite")));

      const done = await demo.cli.run(["reset", "--yes"], { env: envOf() });
      assert.equal(done.code, 0, done.stderr);
      assert.ok(!existsSync(join(dataDir, "pglite")) && !existsSync(join(dataDir, "sandbox")));
      assert.ok(existsSync(join(dataDir, "keep.txt")), "only the embedded storage is deleted");
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
