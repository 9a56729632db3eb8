import assert from "node:assert/strict";
import { execFile, execFileSync, spawn } from "node:child_process";
import { chmod, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { PassThrough } from "node:stream";
import { describe, test } from "node:test";
import type { Command } from "commander";
import { PositionUpdateSchema } from "../../../src/contracts/recruiting/positions.js";
import { parseCsv } from "../../../src/cli/csv.js";
import { buildProgram, COMMAND_MODULES, modulesFor, runCli } from "../../../src/cli/program.js";
import { renderRows, renderTable } from "../../../src/cli/output.js";
import { bodyFromOptions } from "../../../src/cli/schema-options.js";
import { readStoredSession, sessionFile, writeStoredSession } from "../../../src/cli/session-store.js";
import { freePort } from "../../helpers/ports.js";

const ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));

/** Runs the CLI in-process with captured streams (no services needed for these). */
async function inProcess(argv: string[], env: Record<string, string> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d: Buffer) => (out += d.toString()));
  stderr.on("data", (d: Buffer) => (err += d.toString()));
  const stdin = new PassThrough();
  stdin.end();
  const code = await runCli(argv, { stdin, stdout, stderr, env });
  return { code, stdout: out, stderr: err };
}

function leaves(cmd: Command, path: string[] = []): string[][] {
  const subs = cmd.commands.filter((c) => c.name() !== "help");
  if (subs.length === 0) return [path];
  return subs.flatMap((c) => leaves(c, [...path, c.name()]));
}

const wholeProgram = await buildProgram({ stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough(), env: {} });

describe("CLI: --help everywhere, usage errors", () => {
  const commands = leaves(wholeProgram);

  test("the tree has every command the issue lists", () => {
    const names = commands.map((c) => c.join(" "));
    for (const expected of [
      "login",
      "logout",
      "whoami",
      "positions list",
      "positions show",
      "positions create",
      "positions update",
      "candidates list",
      "candidates add",
      "candidates show",
      "candidates update",
      "candidates bulk-update",
      "interview show",
      "integrations show",
      "integrations connect-link",
      "integrations activate",
      "integrations relink",
      "integrations fields",
      "integrations passthrough",
      "integrations custom-fields",
      "integrations map-field",
      "integrations delete",
      "ats jobs",
      "ats applications",
      "ats stages",
      "ats users",
      "ats offers",
      "ats interviews",
      "ats tags",
      "sync start",
      "sync status",
      "sync upstream",
      "admin users list",
      "admin users show",
      "admin users create",
      "admin users reset-password",
      "admin users logout",
      "admin users delete",
      "serve",
    ]) {
      assert.ok(names.includes(expected), `missing: ${expected}`);
    }
  });

  test("every command answers --help with usage and examples, exit 0", async () => {
    for (const path of commands) {
      const res = await inProcess([...path, "--help"]);
      assert.equal(res.code, 0, path.join(" "));
      assert.match(res.stdout, new RegExp(`^Usage: hirebridge ${path.join(" ")}`), path.join(" "));
      assert.match(res.stdout, new RegExp(`\\nExamples:\\n  \\$ .*hirebridge ${path.join(" ")}`), `${path.join(" ")} has examples`);
    }
  });

  test("help wraps at the terminal's width (COLUMNS): every line of every command's --help fits 60 and 80 columns", async () => {
    const paths = [[], ...new Set([...commands.flatMap((c) => c.map((_, i) => c.slice(0, i + 1).join(" ")))])].map((p) =>
      Array.isArray(p) ? p : p.split(" "),
    );
    for (const columns of [60, 80]) {
      for (const path of paths) {
        const res = await inProcess([...path, "--help"], { COLUMNS: String(columns) });
        assert.equal(res.code, 0, path.join(" "));
        const long = res.stdout.split("\n").filter((l) => l.length > columns);
        assert.deepEqual(long, [], `hirebridge ${path.join(" ")} --help at ${columns} columns`);
      }
    }
    // Wrapped, not cut: the words of a description and of an example are all there.
    const narrow = await inProcess(["candidates", "add", "--help"], { COLUMNS: "60" });
    const wide = await inProcess(["candidates", "add", "--help"], { COLUMNS: "400" });
    const words = (t: string) => t.replace(/ \\\n/g, " ").split(/\s+/).filter(Boolean);
    assert.deepEqual(words(narrow.stdout), words(wide.stdout));
    assert.ok(
      wide.stdout.split("\n").some((l) => l.length > 60),
      "wider without the limit",
    );
    // Without COLUMNS (and no terminal): 80.
    const plain = await inProcess(["ats", "applications", "--help"]);
    assert.ok(Math.max(...plain.stdout.split("\n").map((l) => l.length)) <= 80, plain.stdout);
  });

  test("each command module adds exactly the top-level commands its entry names, so a command line loads only its own", async () => {
    const io = { stdin: new PassThrough(), stdout: new PassThrough(), stderr: new PassThrough(), env: {} };
    const everyName: string[] = [];
    for (const m of COMMAND_MODULES) {
      const first = m.commands[0]!;
      const alone = await buildProgram(io, undefined, [first]);
      const own = alone.commands.map((c) => c.name()).filter((n) => n !== "completion");
      assert.deepEqual(own, [...m.commands], `the module of ${first}`);
      everyName.push(...own);
    }
    const all = wholeProgram.commands.map((c) => c.name()).filter((n) => n !== "completion");
    assert.deepEqual(everyName, all, "every top-level command belongs to one module, in --help's order");
    // The command is found past the root options (and their values); help and completion load them
    // all; no command (--help, --version) or an unknown one loads none.
    assert.deepEqual(modulesFor(["--json", "--api-url", "http://x", "positions", "list"]), [COMMAND_MODULES[1]]);
    for (const argv of [
      ["help", "positions"],
      ["completion", "bash"],
      ["--json", "help"],
    ]) {
      assert.equal(modulesFor(argv), COMMAND_MODULES, argv.join(" "));
    }
    for (const argv of [[], ["--help"], ["--version"], ["--api-url", "serve"], ["positons"]]) {
      assert.deepEqual(modulesFor(argv), [], argv.join(" "));
    }
  });

  test("the root's --help from the summaries (no command module loaded) is the whole program's, at 60 and 80 columns", async () => {
    for (const columns of ["60", "80"]) {
      const out = new PassThrough();
      let whole = "";
      out.on("data", (d: Buffer) => (whole += d.toString()));
      const io = { stdin: new PassThrough(), stdout: out, stderr: new PassThrough(), env: { COLUMNS: columns } };
      (await buildProgram(io)).outputHelp();
      const light = await inProcess(["--help"], { COLUMNS: columns });
      assert.equal(light.code, 0);
      assert.equal(light.stdout, whole, `at ${columns} columns`);
    }
    // Each module's summaries are its commands' own terms and descriptions.
    const help = wholeProgram.createHelp();
    for (const m of COMMAND_MODULES) {
      m.commands.forEach((name, i) => {
        const cmd = wholeProgram.commands.find((c) => c.name() === name)!;
        assert.deepEqual([help.subcommandTerm(cmd), cmd.description()], [...m.summaries[i]!], name);
      });
    }
    // An unknown command still gets its suggestion, from the summaries.
    const typo = await inProcess(["positons"]);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /unknown command 'positons'\n\(Did you mean positions\?\)/);
  });

  test("unknown commands and options are usage errors, exit 2", async () => {
    const unknown = await inProcess(["frobnicate"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^hirebridge: unknown command 'frobnicate'\n/);
    const option = await inProcess(["positions", "list", "--colour", "blue"]);
    assert.equal(option.code, 2);
    assert.match(option.stderr, /^hirebridge: unknown option '--colour'/);
    const bare = await inProcess([]);
    assert.equal(bare.code, 2);
    assert.match(bare.stdout, /^Usage: hirebridge \[options\] \[command\]/);
    const group = await inProcess(["positions"]);
    assert.equal(group.code, 2);
  });

  test("an auth URL over plain http to a remote host is refused before anything is sent", async () => {
    const home = await mkdtemp(join(tmpdir(), "hirebridge-cli-"));
    try {
      const res = await inProcess(["login", "-u", "demo", "--auth-url", "http://id.example.com/realms/hirebridge"], {
        HOME: home,
        HIREBRIDGE_PASSWORD: "pw",
      });
      assert.equal(res.code, 2);
      assert.equal(res.stderr, "hirebridge: authUrl must use https:// (plain http is only allowed for loopback hosts)\n");
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe("CLI building blocks", () => {
  test("CSV: quotes, doubled quotes, commas and newlines in fields, CRLF, BOM, blank lines", () => {
    assert.deepEqual(parseCsv('\ufeffid,note\r\n1,"a, ""quoted""\nline"\r\n\r\n2,plain\n'), [
      ["id", "note"],
      ["1", 'a, "quoted"\nline'],
      ["2", "plain"],
    ]);
    assert.throws(() => parseCsv('id\n"open'), /not closed/);
  });

  test("options become a body by the contract's types; absent options are absent fields", () => {
    assert.deepEqual(
      bodyFromOptions(PositionUpdateSchema, {
        minScore: "-5",
        autoUpdateStages: "no",
        acceptedLanguages: "en, de,",
        department: "null",
        name: "X",
      }),
      { name: "X", department: null, min_score: -5, accepted_languages: ["en", "de"], auto_update_stages: false },
    );
    assert.throws(
      () => bodyFromOptions(PositionUpdateSchema, { autoUpdateStages: "maybe" }),
      /--auto-update-stages: expected true or false/,
    );
  });

  test("tables cut long cells and show absent values as -", () => {
    const text = renderTable(
      [
        { header: "ID", value: (r: { id: string; v: unknown }) => r.id },
        { header: "VALUE", value: (r) => r.v, maxWidth: 6 },
      ],
      [
        { id: "a", v: "abcdefghij" },
        { id: "bb", v: null },
      ],
    );
    assert.equal(text, "ID  VALUE\n--  ------\na   abcde…\nbb  -");
  });

  test("rows: a table while it fits; one record per block when a column that must stay would leave or be cut below its min", () => {
    type Row = { id: string; what: string; n: number | null };
    const uuid = "12149833-5f2e-4b8a-9c3d-0e1f2a3b4c5d";
    const columns = [
      { header: "ID", value: (r: Row) => r.id },
      { header: "WHAT", value: (r: Row) => r.what, min: 12 },
      { header: "MIN SCORE", value: (r: Row) => r.n, drop: 1 },
    ];
    const rows: Row[] = [
      { id: uuid, what: "Full sync of applications: succeeded", n: 60 },
      { id: "a1b2c3d4", what: "short", n: null },
    ];
    // Wide enough: a table (the droppable column leaves first).
    const table = renderRows(columns, rows, 60);
    assert.equal(table.blocks, false);
    assert.match(table.text, /^ID {36}WHAT/);
    // WHAT would be cut below 12: one record per block, every column, values whole, ids whole.
    const blocks = renderRows(columns, rows, 48);
    assert.equal(blocks.blocks, true);
    assert.equal(
      blocks.text,
      `ID:        ${uuid}\nWhat:      Full sync of applications: succeeded\nMin score: 60\n\nID:        a1b2c3d4\nWhat:      short\nMin score: -`,
    );
    // Narrower than label and id: the id on a line of its own, whole; other values cut to the width.
    const narrow = renderRows(columns, rows, 30);
    assert.ok(
      narrow.text.split("\n").every((l) => l.length <= 30 || l.trim() === uuid),
      narrow.text,
    );
    assert.match(narrow.text, new RegExp(`^ID:\n  ${uuid}$`, "m"));
    assert.match(narrow.text, /^What: {6}Full sync of appli…$/m);
    // No width (a pipe): the whole table.
    assert.equal(renderRows(columns, rows).blocks, false);
  });

  test("the session file: XDG_CONFIG_HOME or ~/.config, written 0600, tightened when found readable by others", async () => {
    const home = await mkdtemp(join(tmpdir(), "hirebridge-cli-"));
    try {
      assert.equal(sessionFile({ HOME: home }), join(home, ".config", "hirebridge", "session.json"));
      const file = sessionFile({ HOME: home, XDG_CONFIG_HOME: join(home, "xdg") });
      assert.equal(file, join(home, "xdg", "hirebridge", "session.json"));
      const data = {
        version: 1 as const,
        authUrl: "https://id.example.com/realms/x",
        apiUrl: "https://api.example.com/api/v1",
        proxyUrl: "https://proxy.example.com/api/v1",
        clientId: "hirebridge",
        username: "u",
        orgId: null,
        session: null,
      };
      await writeStoredSession(file, data);
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.equal((await stat(join(home, "xdg", "hirebridge"))).mode & 0o777, 0o700);
      await chmod(file, 0o644);
      assert.deepEqual(await readStoredSession(file), data);
      assert.equal((await stat(file)).mode & 0o777, 0o600);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe("CLI: serve", () => {
  test("`hirebridge serve sandbox` starts the service from the bin and stops cleanly on SIGTERM", async (t) => {
    const port = await freePort();
    const dataDir = await mkdtemp(join(tmpdir(), "hirebridge-serve-"));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    const child = spawn(process.execPath, ["bin/hirebridge.js", "serve", "sandbox"], {
      env: {
        PATH: process.env["PATH"] ?? "",
        SANDBOX_PORT: String(port),
        LOG_LEVEL: "silent",
        SANDBOX_APPLICATIONS: "5",
        DATA_DIR: dataDir,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const deadline = Date.now() + 60_000;
    while (!out.includes("Hirebridge is running.") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.match(out, new RegExp(`Upstream sandbox\\s+http://127.0.0.1:${port}/v1`));
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    child.kill("SIGTERM");
    assert.equal(await exited, 0);
  });

  test("an unknown service is exit 2", async () => {
    const res = await inProcess(["serve", "teapot"]);
    assert.equal(res.code, 2);
  });
});

/**
 * Drives the bin on a pseudo-terminal (python3's pty): waits for the prompt, types, and answers the
 * whole terminal transcript and the exit code.
 */
const PTY_DRIVER = `
import os, pty, select, sys, time, json
argv, env, prompt, typed = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execvpe(argv[0], argv, env)
out = b""
def pump(until, limit):
    global out
    deadline = time.time() + limit
    while until not in out and time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return
            if not chunk:
                return
            out += chunk
pump(prompt.encode(), 60)
os.write(fd, typed.encode())
pump(b"\\x00never", 30)
_, status = os.waitpid(pid, 0)
print(json.dumps({"out": out.decode(errors="replace"), "code": os.waitstatus_to_exitcode(status)}))
`;

describe("CLI: the password prompt on a terminal", () => {
  async function onTerminal(typed: string) {
    const port = await freePort(); // nothing listens: the login itself fails after the prompt
    const home = await mkdtemp(join(tmpdir(), "hirebridge-cli-"));
    try {
      const argv = [
        process.execPath,
        "bin/hirebridge.js",
        "login",
        "-u",
        "demo",
        "--auth-url",
        `http://127.0.0.1:${port}/realms/hirebridge`,
      ];
      const env = { PATH: process.env["PATH"] ?? "", HOME: home, XDG_CONFIG_HOME: join(home, "config"), TERM: "dumb" };
      const { stdout } = await promisify(execFile)(
        "python3",
        ["-c", PTY_DRIVER, JSON.stringify([argv, env, "Password for demo: ", typed])],
        {
          cwd: ROOT,
        },
      );
      return JSON.parse(stdout) as { out: string; code: number };
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }

  test("asks without echo: the typed password never reaches the screen", async (t) => {
    if (!hasPython()) return t.skip("python3 is needed to drive a pseudo-terminal");
    const { out, code } = await onTerminal("s3cret-typed-pw\r");
    assert.match(out, /Password for demo: /);
    assert.ok(!out.includes("s3cret-typed-pw"), `echoed: ${out}`);
    assert.equal(code, 6, out); // the password was read; then the identity provider was unreachable
    assert.match(out, /hirebridge: POST \/realms\/hirebridge\/protocol\/openid-connect\/token could not reach 127\.0\.0\.1:\d+/);
    assert.match(out, /is Hirebridge running there\? Start it with `npm start`/, "the next step is named");
  });

  test("Ctrl-C at the prompt cancels with exit 130", async (t) => {
    if (!hasPython()) return t.skip("python3 is needed to drive a pseudo-terminal");
    const { out, code } = await onTerminal("abc\u0003");
    assert.equal(code, 130, out);
    assert.match(out, /hirebridge: Cancelled/);
    assert.ok(!out.includes("abc"));
  });
});

function hasPython(): boolean {
  try {
    execFileSync("python3", ["-c", "import pty"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
