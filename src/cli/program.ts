import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { CliError, describeFailure, EXIT } from "./cli-errors.js";
import type { CliContext, CliIo, GlobalOptions } from "./context.js";
import { examples, type RegisterCommands, type Run } from "./command.js";
import { helpConfiguration, summarised } from "./help-format.js";
import { outputWidth } from "./output.js";

/**
 * Every command module, in the order --help lists its commands, with the top-level commands it
 * adds and their help summaries (term and description, as the root's --help lists them): a command
 * line loads only the module of its command (`serve` does not load the SDK's commands, `positions
 * list` not the others); the root's --help, --version and an unknown command load none (the
 * summaries stand in for them: no SDK, no contracts); `help` and `completion` load them all.
 * test/integration/cli/cli-help-and-units.test.ts checks the names and that the summaries are the
 * commands' own.
 */
export type CommandModule = {
  commands: readonly string[];
  /** Per command: its term and description in the root's --help. */
  summaries: readonly (readonly [term: string, description: string])[];
  load: () => Promise<RegisterCommands[]>;
};

export const COMMAND_MODULES: readonly CommandModule[] = [
  {
    commands: ["login", "logout", "whoami"],
    summaries: [
      ["login [options]", "Log in with username and password and keep the session (file mode 0600) in the config directory."],
      ["logout", "End the session at the identity provider and delete the saved session."],
      ["whoami", "Show who is logged in, where, and until when (refreshing the session if it is due)."],
    ],
    load: async () => [(await import("./commands/auth.commands.js")).registerAuthCommands],
  },
  {
    commands: ["positions"],
    summaries: [["positions", "Hiring positions of your organisation."]],
    load: async () => [(await import("./commands/positions.commands.js")).registerPositionCommands],
  },
  {
    commands: ["candidates", "interview"],
    summaries: [
      ["candidates", "Candidates of a position."],
      ["interview", "A candidate's interview record."],
    ],
    load: async () => [(await import("./commands/candidates.commands.js")).registerCandidateCommands],
  },
  {
    commands: ["integrations"],
    summaries: [["integrations", "ATS integrations: details, connecting, fields, mappings, deletion."]],
    load: async () => [(await import("./commands/integrations.commands.js")).registerIntegrationCommands],
  },
  {
    commands: ["ats"],
    summaries: [["ats", "Read the ATS of an integration through the proxy (pages are followed for you)."]],
    load: async () => [(await import("./commands/ats.commands.js")).registerAtsCommands],
  },
  {
    commands: ["assessment"],
    summaries: [["assessment", "The assessment channel of an integration: packages offered in the ATS and the orders placed there."]],
    load: async () => [(await import("./commands/assessment.commands.js")).registerAssessmentCommands],
  },
  {
    commands: ["sync"],
    summaries: [["sync", "Hirebridge's sync of an integration's jobs and applications into positions and candidates."]],
    load: async () => [(await import("./commands/sync.commands.js")).registerSyncCommands],
  },
  {
    commands: ["webhooks"],
    summaries: [["webhooks", "Your organisation's webhook endpoints: where Hirebridge sends signed events (Standard Webhooks)."]],
    load: async () => [(await import("./commands/webhooks.commands.js")).registerWebhookCommands],
  },
  {
    commands: ["activity"],
    summaries: [
      ["activity", "An integration's trail: webhook events, sync runs, write-backs and failed upstream calls, newest first, with names."],
    ],
    load: async () => [(await import("./commands/activity.commands.js")).registerActivityCommands],
  },
  {
    commands: ["audit"],
    summaries: [["audit", "Your organisation's audit log: who changed what, append-only and hash-chained (docs/privacy.md)."]],
    load: async () => [(await import("./commands/audit.commands.js")).registerAuditCommands],
  },
  {
    commands: ["retention"],
    summaries: [["retention", "Your organisation's data retention policy: how long candidates are kept (docs/privacy.md)."]],
    load: async () => [(await import("./commands/retention.commands.js")).registerRetentionCommands],
  },
  {
    commands: ["admin"],
    summaries: [
      [
        "admin",
        "Administration through the identity provider's (Keycloak) admin API. Admin login: HIREBRIDGE_ADMIN_PASSWORD or ADMIN_PASSWORD, else asked.",
      ],
    ],
    load: async () => [(await import("./commands/admin.commands.js")).registerAdminCommands],
  },
  {
    commands: ["service-accounts"],
    summaries: [
      [
        "service-accounts",
        "Your organisation's service accounts: client credentials for machines (hirebridge login --client-id … --client-secret-stdin).",
      ],
    ],
    load: async () => [(await import("./commands/service-accounts.commands.js")).registerServiceAccountCommands],
  },
  {
    commands: ["serve", "reset"],
    summaries: [
      [
        "serve [options] [services...]",
        "Start services: all (default), or any of token, sandbox, api, proxy, console. Runs until SIGINT/SIGTERM.",
      ],
      [
        "reset [options]",
        "Delete the embedded stack's data under DATA_DIR (Hirebridge's database and the sandbox's state, together); the next start begins from the seed. Asks first unless --yes.",
      ],
    ],
    load: async () => {
      const m = await import("./commands/serve.commands.js");
      return [m.registerServeCommand, m.registerResetCommand];
    },
  },
];

/** The root options that take a value (their value is not the command's name). */
const VALUE_OPTIONS = new Set(["--auth-url", "--api-url", "--proxy-url", "--client-id"]);

/** The commands that need every module: `help <command>` and `completion`. */
const NEEDS_ALL = new Set(["help", "completion"]);

/**
 * The command modules `argv` needs: the one of its command; none when it names no command (--help,
 * --version) or an unknown one (the summaries answer those); all for `help` and `completion`, and
 * without `argv`.
 */
export function modulesFor(argv: readonly string[] | undefined): readonly CommandModule[] {
  if (!argv) return COMMAND_MODULES;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") break;
    if (arg.startsWith("-")) {
      if (VALUE_OPTIONS.has(arg)) i++;
      continue;
    }
    if (NEEDS_ALL.has(arg)) return COMMAND_MODULES;
    const own = COMMAND_MODULES.find((m) => m.commands.includes(arg));
    return own ? [own] : [];
  }
  return [];
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
  const modules = modulesFor(argv);
  const registrations = (await Promise.all(modules.map((m) => m.load()))).flat();
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
  // No module loaded (the root's --help, --version, an unknown command): each command by its summary.
  if (modules.length === 0) {
    for (const m of COMMAND_MODULES) {
      m.commands.forEach((name, i) => {
        const [term, description] = m.summaries[i]!;
        summarised(program.command(name).description(description), term);
      });
    }
  }
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
