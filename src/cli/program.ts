import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { CliError, describeFailure, EXIT } from "./cli-errors.js";
import type { CliContext, CliIo, GlobalOptions } from "./context.js";
import { examples, type RegisterCommands, type Run } from "./command.js";
import { helpConfiguration } from "./help-format.js";
import { outputWidth } from "./output.js";

/**
 * Every command module, in the order --help lists its commands, with the top-level commands it
 * adds: a command line loads only the module of its command (`serve` does not load the SDK's
 * commands, `positions list` not the others), while --help, `help`, `completion` and an unknown
 * command load them all. test/integration/cli/cli-help-and-units.test.ts checks the names.
 */
export const COMMAND_MODULES: readonly { commands: readonly string[]; load: () => Promise<RegisterCommands[]> }[] = [
  { commands: ["login", "logout", "whoami"], load: async () => [(await import("./commands/auth.commands.js")).registerAuthCommands] },
  { commands: ["positions"], load: async () => [(await import("./commands/positions.commands.js")).registerPositionCommands] },
  {
    commands: ["candidates", "interview"],
    load: async () => [(await import("./commands/candidates.commands.js")).registerCandidateCommands],
  },
  { commands: ["integrations"], load: async () => [(await import("./commands/integrations.commands.js")).registerIntegrationCommands] },
  { commands: ["ats"], load: async () => [(await import("./commands/ats.commands.js")).registerAtsCommands] },
  {
    commands: ["assessment"],
    load: async () => [(await import("./commands/assessment.commands.js")).registerAssessmentCommands],
  },
  { commands: ["sync"], load: async () => [(await import("./commands/sync.commands.js")).registerSyncCommands] },
  { commands: ["webhooks"], load: async () => [(await import("./commands/webhooks.commands.js")).registerWebhookCommands] },
  { commands: ["activity"], load: async () => [(await import("./commands/activity.commands.js")).registerActivityCommands] },
  { commands: ["audit"], load: async () => [(await import("./commands/audit.commands.js")).registerAuditCommands] },
  { commands: ["retention"], load: async () => [(await import("./commands/retention.commands.js")).registerRetentionCommands] },
  { commands: ["admin"], load: async () => [(await import("./commands/admin.commands.js")).registerAdminCommands] },
  {
    commands: ["service-accounts"],
    load: async () => [(await import("./commands/service-accounts.commands.js")).registerServiceAccountCommands],
  },
  {
    commands: ["serve", "reset"],
    load: async () => {
      const m = await import("./commands/serve.commands.js");
      return [m.registerServeCommand, m.registerResetCommand];
    },
  },
];

/** The root options that take a value (their value is not the command's name). */
const VALUE_OPTIONS = new Set(["--auth-url", "--api-url", "--proxy-url", "--client-id"]);

/** The command modules `argv` needs: the one of its command, or all (no command, help, completion, unknown). */
export function modulesFor(argv: readonly string[] | undefined): typeof COMMAND_MODULES {
  if (!argv) return COMMAND_MODULES;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") break;
    if (arg.startsWith("-")) {
      if (VALUE_OPTIONS.has(arg)) i++;
      continue;
    }
    const own = COMMAND_MODULES.find((m) => m.commands.includes(arg));
    return own ? [own] : COMMAND_MODULES;
  }
  return COMMAND_MODULES;
}

/** The package's version (package.json sits two folders up from src/cli and from dist/cli). */
const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

/**
 * The command tree: the whole of it, or (with `argv`) only what that command line needs.
 * `setExitCode` receives each action's exit code; commander's own errors (usage, --help) surface
 * as CommanderError from `parseAsync` (exitOverride).
 */
export async function buildProgram(
  io: CliIo,
  setExitCode: (code: number) => void = () => undefined,
  argv?: readonly string[],
): Promise<Command> {
  const registrations = (await Promise.all(modulesFor(argv).map((m) => m.load()))).flat();
  const program = new Command("hirebridge")
    .description(
      "Hirebridge from the command line: positions, candidates, integrations, ATS data, syncs, users, and the services themselves.",
    )
    .option("--json", "print results as JSON (the API's answer) instead of tables")
    .option("--wide", "print tables whole, as wide as their cells (not fitted to the terminal, never one record per block)")
    .option("--auth-url <url>", "identity provider realm URL (env HIREBRIDGE_AUTH_URL; default http://127.0.0.1:8080/realms/hirebridge)")
    .option("--api-url <url>", "recruiting API base URL (env HIREBRIDGE_API_URL; default http://127.0.0.1:8001/api/v1)")
    .option("--proxy-url <url>", "integration proxy base URL (env HIREBRIDGE_PROXY_URL; default http://127.0.0.1:8000/api/v1)")
    .option("--client-id <id>", "OAuth client id (env HIREBRIDGE_CLIENT_ID; default hirebridge)")
    .version(VERSION, "-V, --version", "print the version")
    .showHelpAfterError("(add --help for usage)")
    .exitOverride()
    .configureHelp(helpConfiguration)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Help wraps at the terminal's width: its columns, else COLUMNS, else 80.
      getOutHelpWidth: () => outputWidth(io.stdout, io.env) ?? 80,
      getErrHelpWidth: () => outputWidth(io.stderr, io.env) ?? 80,
      outputError: (s, write) => write(s.replace(/^error: /, "hirebridge: ")),
    });

  const run: Run =
    (action) =>
    async (...params) => {
      const cmd = params.at(-1) as Command;
      // The SDK client comes with the context: loaded when a command runs, not for --help.
      const { CliContext } = await import("./context.js");
      const ctx: CliContext = new CliContext(io, cmd.optsWithGlobals<GlobalOptions>());
      const code = await action(
        ctx,
        cmd.processedArgs.flat().filter((a): a is string => typeof a === "string"),
        cmd.opts(),
      );
      setExitCode(code ?? EXIT.OK);
    };
  for (const register of registrations) register(program, run);
  const completion = program
    .command("completion")
    .description("Print a shell completion script (bash or zsh) for hirebridge's commands and options.")
    .argument("<shell>", "bash or zsh")
    .action(
      run(async (ctx, [shell]) => {
        const { bashCompletion, zshCompletion } = await import("./completion.js");
        if (shell !== "bash" && shell !== "zsh") throw new CliError("The shell must be bash or zsh", EXIT.USAGE);
        ctx.io.stdout.write(shell === "bash" ? bashCompletion(program) : zshCompletion(program));
      }),
    );
  examples(completion, ['eval "$(hirebridge completion bash)"   # in ~/.bashrc', 'eval "$(hirebridge completion zsh)"    # in ~/.zshrc']);
  examples(program, [
    "hirebridge login --username demo",
    "hirebridge positions list",
    "hirebridge --json candidates list <position-id>",
    "hirebridge ats jobs --integration <integration-id>",
    "hirebridge serve all",
  ]);
  return program;
}

/**
 * Runs the command line `argv` (without node and the script) and answers the exit code. Every
 * failure becomes one line on stderr; usage errors exit 2, the others as cli-errors.ts maps them.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.OK;
  const program = await buildProgram(
    io,
    (code) => {
      exitCode = code;
    },
    argv,
  );
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.USAGE;
  }
  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has written its message (or the help) already; --help itself is a success.
      return err.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    const { message, exitCode: code } = describeFailure(err);
    io.stderr.write(`hirebridge: ${message}\n`);
    return code;
  }
}
