import {
  POSITION_STATES,
  PositionCreateSchema,
  PositionUpdateSchema,
  type Position,
  type PositionCreate,
} from "../../contracts/recruiting/positions.js";
import type { Hirebridge } from "../../client/index.js";
import { CliError, EXIT } from "../cli-errors.js";
import type { Column, Output } from "../output.js";
import { examples, type RegisterCommands } from "../command.js";
import { addSchemaOptions, bodyFromOptions } from "../schema-options.js";
import { registerPositionEraseCommand } from "./positions-erase.js";

const COLUMNS: Column<Position>[] = [
  { header: "ID", value: (p) => p.id },
  { header: "NAME", value: (p) => p.name, maxWidth: 32 },
  { header: "STATE", value: (p) => p.state },
  { header: "DEPARTMENT", value: (p) => p.department, maxWidth: 20, drop: 2 },
  { header: "LOCATION", value: (p) => p.location, maxWidth: 20, drop: 3 },
  { header: "MIN SCORE", value: (p) => p.min_score },
  { header: "UPSTREAM JOB", value: (p) => p.upstream_job_id_id, id: true, drop: 1 },
];

/** Every field of a position, in the spec's order, for `show`, `create` and `update`. */
export const positionFields = (p: Position): [string, unknown][] => Object.entries(p);

const STAGE_FIELDS = new Set(["candidate_stage", "passed_stage", "rejected_stage", "needs_reviewed_stage"]);
type JobStage = { id: string; name: string | null };

/** The stage a stage field names (by id first, then by name, case-insensitively: as the sync matches it). */
const stageOf = (stages: JobStage[], value: string) =>
  stages.find((s) => s.id === value) ?? stages.find((s) => s.name?.trim().toLowerCase() === value.trim().toLowerCase());

/**
 * A linked position's fields with names beside ids: the job's and the integration's names, and
 * each stage field as the stage's name with its id (a field that names no stage of the job says
 * so). Read from the proxy; when it cannot answer, the fields as stored.
 */
async function namedPositionFields(hb: Hirebridge, p: Position): Promise<[string, unknown][]> {
  const integrationId = p.upstream_integration_id;
  const jobId = p.upstream_job_id_id;
  if (!integrationId || !jobId) return positionFields(p);
  const [jobs, integration] = await Promise.allSettled([
    hb.ats.jobs.list({ integration_id: integrationId, ids: jobId }),
    hb.integrations.summary(integrationId),
  ]);
  const job = jobs.status === "fulfilled" ? jobs.value.data.results.find((j) => j.id === jobId) : undefined;
  const stages: JobStage[] = job?.stages ?? [];
  return positionFields(p).map(([field, value]): [string, unknown] => {
    if (field === "upstream_job_id_id" && job?.name) return [field, `${value} (${job.name})`];
    if (field === "upstream_integration_id" && integration.status === "fulfilled")
      return [field, `${value} (${integration.value.display_name})`];
    if (!STAGE_FIELDS.has(field) || typeof value !== "string" || !job) return [field, value];
    const stage = stageOf(stages, value);
    return [field, stage ? `${stage.name ?? value} (stage id ${stage.id})` : `${value} (not a stage of the job)`];
  });
}

/** A position as a record: --json the API's answer; for people, with names beside its ids. */
const showPosition = async (ctx: { out: Output }, hb: Hirebridge, p: Position) =>
  ctx.out.record(p, ctx.out.json ? [] : await namedPositionFields(hb, p));

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
    .description("Show one position; a linked one with its job's and integration's names, and its stages' names with their ids.")
    .argument("<position-id>")
    .action(
      run(async (ctx, [id]) => {
        const hb = await ctx.client();
        await showPosition(ctx, hb, await hb.positions.get(id!));
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
      const hb = await ctx.client();
      await showPosition(ctx, hb, await hb.positions.create(body));
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
        const hb = await ctx.client();
        await showPosition(ctx, hb, await hb.positions.update(id!, body));
      }),
    );
  examples(update, ["hirebridge positions update 3f0c… --state active", "hirebridge positions update 3f0c… --department null"]);
  registerPositionEraseCommand(positions, run);
};
