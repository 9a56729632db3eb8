import type { Command } from "commander";
import type { ExitCode } from "./cli-errors.js";
import type { CliContext } from "./context.js";
import { exampleLines, helpWidthOf } from "./help-format.js";

/*
 * What every command module builds on. Kept apart from program.ts (which loads the command
 * modules) so that a command module never imports the program that imports it.
 */

/** What a command does with its context, positional arguments and own options. */
// biome-ignore lint/suspicious/noConfusingVoidType: an action that returns nothing (void) exits 0
export type Action = (ctx: CliContext, args: string[], options: Record<string, unknown>) => Promise<void | ExitCode | number>;

/** Wraps an action: builds the context from the global options, runs, records the exit code. */
export type Run = (action: Action) => (...params: unknown[]) => Promise<void>;

/** A command module: adds its commands (with help and examples) to the program. */
export type RegisterCommands = (program: Command, run: Run) => void;

/** Adds an "Examples:" section to a command's --help (lines wider than the help continue with ` \\`). */
export function examples(cmd: Command, lines: string[]): Command {
  return cmd.addHelpText("after", ({ command }) => {
    const width = helpWidthOf(command);
    return `\nExamples:\n${lines.flatMap((l) => exampleLines(l, width)).join("\n")}\n`;
  });
}
