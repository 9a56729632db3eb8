// Runs every test file (node's test runner, two at a time, each file in a process of its own) and
// prints the spec reporter's output. One thing it adds to `node --test`: a file whose process was
// killed by a native crash signal, not by a failed assertion, is run once more.
//
// Why: on Node 24 a test process that creates and closes many embedded Postgres instances (PGlite's
// WebAssembly) now and then dies inside V8 itself: "Check failed: jit_page.has_value()" (SIGTRAP) or
// glibc's "corrupted size vs. prev_size" (SIGABRT), about one full run in four on this project's CI
// machine, each time in a different file. It is V8's bookkeeping of WebAssembly code pages
// (https://github.com/nodejs/node/issues/64500), not this project's code, and no patch release or
// flag available to us closes it. Such a file is run again, alone, and the run passes only if that
// second run passes wholly. A failed assertion, a timeout or a non-zero exit is never re-run.
import { run } from "node:test";
import { spec } from "node:test/reporters";
import { finished } from "node:stream/promises";

/** Signals a process dies of when native code fails (V8's CHECKs trap; glibc and abort() abort). */
const CRASH_SIGNALS = new Set(["SIGTRAP", "SIGABRT", "SIGSEGV", "SIGBUS", "SIGILL"]);

const options = { concurrency: 2, timeout: 120_000, execArgv: ["--import", "tsx"] };

/** Runs `selection` and says which files failed, and which of them died of a crash signal. */
async function pass(selection) {
  const failed = new Set();
  const crashed = new Map();
  const stream = run({ ...options, ...selection });
  stream.on("test:fail", ({ file, nesting, details }) => {
    const signal = details?.error?.signal;
    if (nesting === 0 && file && CRASH_SIGNALS.has(signal)) crashed.set(file, signal);
    else failed.add(file ?? "(a file the runner could not name)");
  });
  const report = stream.compose(spec);
  report.pipe(process.stdout, { end: false });
  await finished(report);
  for (const file of crashed.keys()) failed.delete(file);
  return { failed, crashed };
}

const patterns = process.argv.length > 2 ? process.argv.slice(2) : ["test/**/*.test.ts"];
const first = await pass({ globPatterns: patterns });
let failed = first.failed;
if (first.crashed.size > 0) {
  const lines = [...first.crashed].map(([file, signal]) => `  ${file} (${signal})`).join("\n");
  process.stdout.write(`\nRe-running ${first.crashed.size} file(s) whose process died of a native crash signal:\n${lines}\n\n`);
  const second = await pass({ files: [...first.crashed.keys()] });
  failed = new Set([...failed, ...second.failed, ...second.crashed.keys()]);
}
if (failed.size > 0) {
  process.stdout.write(`\n${failed.size} file(s) failed:\n${[...failed].map((f) => `  ${f}`).join("\n")}\n`);
  process.exitCode = 1;
}
