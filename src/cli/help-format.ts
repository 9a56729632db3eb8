import { type Command, Help, type HelpConfiguration } from "commander";

/*
 * Help text that fits the terminal (issue 42): commander's help, with each option's and command's
 * description wrapped at the terminal's width (COLUMNS or the tty's columns, else 80), and put
 * under its term when beside it there is no room, and examples broken into shell continuation lines.
 */

/** Below this many columns beside the term, a description goes under it instead. */
const MIN_BESIDE = 24;
/** How far a description under its term is indented. */
const UNDER_INDENT = 6;

/** `text` in lines of at most `width` characters, broken at spaces; a longer word is broken too. */
export function wrapText(text: string, width: number): string[] {
  const out: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (let word of paragraph.split(/\s+/).filter(Boolean)) {
      while (word.length > width) {
        if (line) out.push(line);
        out.push(word.slice(0, width));
        word = word.slice(width);
        line = "";
      }
      if (!line) line = word;
      else if (line.length + 1 + word.length <= width) line += ` ${word}`;
      else {
        out.push(line);
        line = word;
      }
    }
    out.push(line);
  }
  return out;
}

/** Commands standing in for a command module not loaded, with the term their module's command has. */
const SUMMARY_TERMS = new WeakMap<Command, string>();

/** Marks `cmd` as standing in for a command of a module not loaded: --help lists it by `term`. */
export function summarised(cmd: Command, term: string): Command {
  SUMMARY_TERMS.set(cmd, term);
  return cmd;
}

/** commander's help configuration: descriptions wrapped to the help width (beside the term, or under it). */
export const helpConfiguration: HelpConfiguration = {
  minWidthToWrap: MIN_BESIDE,
  formatItem(term, termWidth, description, helper) {
    const width = helper.helpWidth ?? 80;
    // A term wider than the help (a command with many arguments) continues on the next lines.
    const termLines = wrapText(term, width - 4).map((l, i) => `${i === 0 ? "  " : "    "}${l}`);
    if (!description) return termLines.join("\n");
    const beside = width - termWidth - 4;
    const longestWord = Math.max(...description.split(/\s+/).map((w) => w.length));
    if (beside >= MIN_BESIDE && longestWord <= beside) {
      return `  ${term.padEnd(termWidth)}  ${wrapText(description, beside).join(`\n${" ".repeat(termWidth + 4)}`)}`;
    }
    const under = wrapText(description, Math.max(MIN_BESIDE, width - UNDER_INDENT)).map((l) => `${" ".repeat(UNDER_INDENT)}${l}`);
    return [...termLines, ...under].join("\n");
  },
  subcommandTerm(this: Help, cmd) {
    return SUMMARY_TERMS.get(cmd) ?? Help.prototype.subcommandTerm.call(this, cmd);
  },
  /** The usage line (`Usage: ` and this) wrapped too, its continuation lines under the usage's start. */
  commandUsage(this: Help, cmd) {
    const usage = Help.prototype.commandUsage.call(this, cmd);
    const indent = "Usage: ".length;
    return wrapText(usage, Math.max(MIN_BESIDE, (this.helpWidth ?? 80) - indent)).join(`\n${" ".repeat(indent)}`);
  },
  boxWrap(str, width) {
    return wrapText(str, Math.max(MIN_BESIDE, width)).join("\n");
  },
};

/** The help width a command's help is written at (its output configuration, inherited from the program). */
export function helpWidthOf(cmd: Command): number {
  return cmd.configureOutput().getOutHelpWidth?.() ?? 80;
}

/** An example command line as `  $ …`, continued with ` \` on indented lines when it is wider than `width`. */
export function exampleLines(example: string, width: number): string[] {
  const first = "  $ ";
  const next = "      ";
  const words = example.split(" ");
  const lines: string[] = [];
  let line = first;
  for (const word of words) {
    const candidate = line === first || line === next ? `${line}${word}` : `${line} ${word}`;
    if (candidate.length + 2 > width && line !== first && line !== next) {
      lines.push(`${line} \\`);
      line = `${next}${word}`;
    } else line = candidate;
  }
  lines.push(line);
  return lines;
}
