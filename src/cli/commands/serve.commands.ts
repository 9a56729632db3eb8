import type { RegisterCommands } from "../command.js";
import { examples } from "../command.js";

/** `hirebridge serve …`: the services themselves (src/cli/serve.ts), loaded only when asked for. */
export const registerServeCommand: RegisterCommands = (program, run) => {
  const cmd = program
    .command("serve")
    .description("Start services: all (default), or any of token, sandbox, api, proxy, console. Runs until SIGINT/SIGTERM.")
    .argument("[services...]", "services to start")
    .option("--check", "only check that their ports are free and DATA_DIR is not in use (`npm start` does before building)")
    .action(
      run(async (ctx, services, opts) => {
        // Imported here so the everyday commands do not load the servers, drivers and migrations.
        const { serve } = await import("../serve.js");
        return serve(services, ctx.io.env, { check: opts["check"] === true });
      }),
    );
  examples(cmd, [
    "hirebridge serve",
    "hirebridge serve --check all",
    "hirebridge serve token api",
    "DATABASE_URL=postgres://postgres@127.0.0.1/hirebridge hirebridge serve all",
  ]);
};

/** `hirebridge reset`: wipes the embedded stack's storage, both sides together (src/cli/reset.ts). */
export const registerResetCommand: RegisterCommands = (program, run) => {
  const cmd = program
    .command("reset")
    .description(
      "Delete the embedded stack's data under DATA_DIR (Hirebridge's database and the sandbox's state, together); the next start begins from the seed. Asks first unless --yes.",
    )
    .option("-y, --yes", "do not ask (for scripts)")
    .action(
      run(async (ctx, _args, opts) => {
        const { reset } = await import("../reset.js");
        return reset(ctx, opts["yes"] === true);
      }),
    );
  examples(cmd, ["hirebridge reset", "DATA_DIR=/tmp/hb hirebridge reset --yes"]);
};
