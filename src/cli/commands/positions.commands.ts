import {
  POSITION_STATES,
  PositionCreateSchema,
  PositionUpdateSchema,
  type Position,
  type PositionCreate,
} from "../../contracts/recruiting/positions.js";
import { CliError, EXIT } from "../cli-errors.js";
import type { Column } from "../output.js";
import { examples, type RegisterCommands } from "../program.js";
import { addSchemaOptions, bodyFromOptions } from "../schema-options.js";

const COLUMNS: Column<Position>[] = [
  { header: "ID", value: (p) => p.id },
  { header: "NAME", value: (p) => p.name, maxWidth: 32 },
  { header: "STATE", value: (p) => p.state },
  { header: "DEPARTMENT", value: (p) => p.department, maxWidth: 20 },
  { header: "LOCATION", value: (p) => p.location, maxWidth: 20 },
  { header: "MIN SCORE", value: (p) => p.min_score },
  { header: "UPSTREAM JOB", value: (p) => p.upstream_job_id_id },
];

/** Every field of a position, in the spec's order, for `show`, `create` and `update`. */
export const positionFields = (p: Position): [string, unknown][] => Object.entries(p);

export const registerPositionCommands: RegisterCommands = (program, run) => {
  const positions = program.command("positions").description("Hiring positions of your organisation.");

  const list = positions
    .command("list")
    .description("List positions (all of them, oldest first).")
    .option(`--state <state>`, `only positions in this state (${POSITION_STATES.join(", ")})`)
    .action(
      run(async (ctx, _args, opts) => {
        const hb = await ctx.client();
        const items: Position[] = [];
        for await (const p of hb.positions.iterate(opts["state"] ? { state: opts["state"] as Position["state"] } : {})) items.push(p);
        ctx.out.table(items, COLUMNS);
      }),
    );
  examples(list, [
    "hirebridge positions list",
    "hirebridge positions list --state active",
    "hirebridge --json positions list | jq '.[].name'",
  ]);

  const show = positions
    .command("show")
    .description("Show one position.")
    .argument("<position-id>")
    .action(
      run(async (ctx, [id]) => {
        const position = await (await ctx.client()).positions.get(id!);
        ctx.out.record(position, positionFields(position));
      }),
    );
  examples(show, ["hirebridge positions show 3f0c…"]);

  const create = addSchemaOptions(
    positions.command("create").description("Create a position (state defaults to draft)."),
    PositionCreateSchema,
    { enforceRequired: true },
  ).action(
    run(async (ctx, _args, opts) => {
      const body = bodyFromOptions(PositionCreateSchema, opts) as PositionCreate;
      const position = await (await ctx.client()).positions.create(body);
      ctx.out.record(position, positionFields(position));
    }),
  );
  examples(create, [
    'hirebridge positions create --name "Backend Engineer" --department Engineering --min-score 70',
    'hirebridge positions create --name "Support Lead" --state active --accepted-languages en,de --candidate-stage "AI Interview"',
  ]);

  const update = addSchemaOptions(
    positions.command("update").description("Change the given fields of a position (the others stay)."),
    PositionUpdateSchema,
  )
    .argument("<position-id>")
    .action(
      run(async (ctx, [id], opts) => {
        const body = bodyFromOptions(PositionUpdateSchema, opts);
        if (Object.keys(body).length === 0)
          throw new CliError("Nothing to change: give at least one field option (see --help)", EXIT.USAGE);
        const position = await (await ctx.client()).positions.update(id!, body);
        ctx.out.record(position, positionFields(position));
      }),
    );
  examples(update, ["hirebridge positions update 3f0c… --state active", "hirebridge positions update 3f0c… --department null"]);
};
