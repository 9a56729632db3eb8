import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { CliError, EXIT } from "./cli-errors.js";

export type Terminal = { stdin: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown }; stderr: Writable };

const CTRL_C = "\u0003";
const CTRL_D = "\u0004";
const BACKSPACE = ["\u007f", "\b"];

/**
 * Asks for a secret. On a terminal nothing is echoed (raw mode, keystrokes read one by one);
 * otherwise one line is read from stdin, for scripts that pipe it in.
 */
export async function readSecret(term: Terminal, prompt: string): Promise<string> {
  const { stdin } = term;
  if (!stdin.isTTY || !stdin.setRawMode) return readLine(term, null);
  // Raw mode (no echo) before the prompt appears, so nothing typed after seeing it is ever echoed.
  stdin.setRawMode(true);
  term.stderr.write(prompt);
  stdin.setEncoding("utf8");
  stdin.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = "";
      const onData = (chunk: string) => {
        for (const ch of chunk) {
          if (ch === "\r" || ch === "\n") return done(() => resolve(value));
          if (ch === CTRL_C || (ch === CTRL_D && value === "")) return done(() => reject(new CliError("Cancelled", EXIT.INTERRUPTED)));
          if (BACKSPACE.includes(ch)) value = value.slice(0, -1);
          else if (ch >= " ") value += ch;
        }
      };
      const done = (finish: () => void) => {
        stdin.off("data", onData);
        finish();
      };
      stdin.on("data", onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    term.stderr.write("\n");
  }
}

/** Reads one line (without its newline) from stdin; `prompt` is shown on a terminal. */
export async function readLine(term: Terminal, prompt: string | null): Promise<string> {
  const rl = createInterface({ input: term.stdin, terminal: false });
  try {
    if (prompt && term.stdin.isTTY) term.stderr.write(prompt);
    for await (const line of rl) return line;
    throw new CliError("No input: stdin ended before a line was read", EXIT.USAGE);
  } finally {
    rl.close();
  }
}

/** Reads all of stdin (for `--password-stdin`), without the trailing newline. */
export async function readStdin(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/** Asks a yes/no question; only "y" or "yes" confirms. On EOF (nothing piped) the answer is no. */
export async function confirm(term: Terminal, question: string): Promise<boolean> {
  term.stderr.write(`${question} [y/N] `);
  let answer = "";
  try {
    answer = await readLine(term, null);
  } catch (err) {
    if (!(err instanceof CliError)) throw err;
  }
  if (!term.stdin.isTTY) term.stderr.write("\n");
  return /^(y|yes)$/i.test(answer.trim());
}
