#!/usr/bin/env node
import { serve } from "./serve.js";

const USAGE = `Usage: hirebridge <command>

Commands:
  serve [all|token|api|proxy|sandbox ...]   Start services (default: all, on embedded defaults)

Run 'hirebridge <command> --help' for details.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return serve(rest);
    case undefined:
    case "--help":
    case "-h":
    case "help":
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`Unknown command '${command}'.\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`hirebridge: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
