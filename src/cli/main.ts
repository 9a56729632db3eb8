#!/usr/bin/env node
import { runCli } from "./program.js";

/** The `hirebridge` bin: parse, run, flush the output, exit with the command's code. */
const flush = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write("", () => resolve()));

runCli(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  async (code) => {
    await Promise.all([flush(process.stdout), flush(process.stderr)]);
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`hirebridge: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
