import type { TObject } from "@sinclair/typebox";
import {
  ApplicationsQuerySchema,
  ApplicationStagesQuerySchema,
  AtsListQuerySchema,
  InterviewsQuerySchema,
  JobsQuerySchema,
  OffersQuerySchema,
  PAGE_SIZE_MAX,
  UsersQuerySchema,
} from "../../contracts/proxy/index.js";
import type { Hirebridge } from "../../client/index.js";
import { CliError, EXIT } from "../cli-errors.js";
import type { Column } from "../output.js";
import { examples, type RegisterCommands } from "../command.js";
import { addSchemaOptions, bodyFromOptions } from "../schema-options.js";

type AnyRecord = Record<string, unknown> & { id: string };
type Lister = { iterate(query: never): AsyncGenerator<unknown, void, undefined> };

/** "First Last" of any person-shaped record (candidate, user), or null. */
const name = (value: unknown) => {
  const p = value as { first_name?: unknown; last_name?: unknown } | null | undefined;
  return p ? [p.first_name, p.last_name].filter(Boolean).join(" ") : null;
};
const get = (r: AnyRecord, key: string) => r[key];
const nested = (r: AnyRecord, key: string, inner: string) => (r[key] as Record<string, unknown> | null | undefined)?.[inner];

/** The ATS record kinds the proxy lists, each with its query schema (for the filters) and its table. */
const KINDS: { command: string; what: string; schema: TObject; lister: (hb: Hirebridge) => Lister; columns: Column<AnyRecord>[] }[] = [
  {
    command: "jobs",
    what: "jobs (with their stages)",
    schema: JobsQuerySchema,
    lister: (hb) => hb.ats.jobs,
    columns: [
      { header: "ID", value: (r) => r.id },
      { header: "NAME", value: (r) => get(r, "name"), maxWidth: 36 },
      { header: "STATUS", value: (r) => get(r, "status") },
      { header: "EMPLOYMENT", value: (r) => get(r, "employment_type") },
      { header: "STAGES", value: (r) => (get(r, "stages") as { name: string | null }[]).map((s) => s.name) },
    ],
  },
  {
    command: "applications",
    what: "applications (candidate, job, current stage)",
    schema: ApplicationsQuerySchema,
    lister: (hb) => hb.ats.applications,
    columns: [
      { header: "ID", value: (r) => r.id },
      { header: "CANDIDATE", value: (r) => name(get(r, "candidate")), maxWidth: 28 },
      { header: "JOB", value: (r) => nested(r, "job", "name"), maxWidth: 28 },
      { header: "STAGE", value: (r) => nested(r, "current_stage", "name"), maxWidth: 24 },
      { header: "OUTCOME", value: (r) => get(r, "outcome") },
      { header: "CHANGED", value: (r) => get(r, "changed_at") },
    ],
  },
  {
    command: "stages",
    what: "application stages",
    schema: ApplicationStagesQuerySchema,
    lister: (hb) => hb.ats.stages,
    columns: [
      { header: "ID", value: (r) => r.id },
      { header: "NAME", value: (r) => get(r, "name"), maxWidth: 36 },
      { header: "REMOTE ID", value: (r) => get(r, "remote_id") },
    ],
  },
  {
    command: "users",
    what: "ATS users (recruiters, hiring managers …)",
    schema: UsersQuerySchema,
    lister: (hb) => hb.ats.users,
    columns: [
      { header: "ID", value: (r) => r.id },
      { header: "NAME", value: (r) => name(r), maxWidth: 28 },
      { header: "EMAIL", value: (r) => get(r, "email"), maxWidth: 32 },
      { header: "STATUS", value: (r) => get(r, "status") },
    ],
  },
  {
    command: "offers",
    what: "offers",
    schema: OffersQuerySchema,
    lister: (hb) => hb.ats.offers,
    columns: [
      { header: "ID", value: (r) => r.id },
      { header: "STATUS", value: (r) => get(r, "status") },
      { header: "APPLICATION", value: (r) => get(r, "application_id"), id: true },
      { header: "CANDIDATE", value: (r) => name((get(r, "application") as { candidate?: unknown } | null)?.candidate), maxWidth: 28 },
      { header: "STARTS", value: (r) => get(r, "employment_start_date") },
    ],
  },
  {
    command: "interviews",
    what: "interviews scheduled in the ATS",
    schema: InterviewsQuerySchema,
    lister: (hb) => hb.ats.interviews,
    columns: [
      { header: "ID", value: (r) => r.id },
      { header: "TITLE", value: (r) => get(r, "title"), maxWidth: 32 },
      { header: "STARTS", value: (r) => get(r, "starting_at") },
      { header: "APPLICATION", value: (r) => get(r, "application_id"), id: true },
      { header: "CANCELED", value: (r) => (get(r, "canceled") ? "yes" : "no") },
    ],
  },
  {
    command: "tags",
    what: "candidate tags",
    schema: AtsListQuerySchema,
    lister: (hb) => hb.ats.tags,
    columns: [
      { header: "ID", value: (r) => r.id },
      { header: "NAME", value: (r) => get(r, "name"), maxWidth: 36 },
      { header: "REMOTE ID", value: (r) => get(r, "remote_id") },
    ],
  },
  {
    command: "rejection-reasons",
    what: "rejection reasons",
    schema: AtsListQuerySchema,
    lister: (hb) => hb.ats.rejectionReasons,
    columns: [
      { header: "ID", value: (r) => r.id },
      { header: "NAME", value: (r) => get(r, "name"), maxWidth: 36 },
      { header: "REMOTE ID", value: (r) => get(r, "remote_id") },
    ],
  },
];

const NOT_FILTERS = ["integration_id", "cursor", "page_size"] as const;
const DEFAULT_LIMIT = 50;

function positiveInt(raw: unknown, flag: string, min: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new CliError(`${flag} must be a whole number >= ${min}`, EXIT.USAGE);
  return n;
}

export const registerAtsCommands: RegisterCommands = (program, run) => {
  const ats = program.command("ats").description("Read the ATS of an integration through the proxy (pages are followed for you).");
  for (const kind of KINDS) {
    const cmd = addSchemaOptions(
      ats
        .command(kind.command)
        .description(`List ${kind.what}.`)
        .option("-i, --integration <id>", "integration id (env HIREBRIDGE_INTEGRATION_ID)")
        .option("--limit <n>", `at most this many records; 0 for all (default ${DEFAULT_LIMIT})`)
        .option("--page-size <n>", `records per request, 1-${PAGE_SIZE_MAX} (default 100)`),
      kind.schema,
      { exclude: NOT_FILTERS },
    ).action(
      run(async (ctx, _args, opts) => {
        const integration = (opts["integration"] as string | undefined) || ctx.io.env["HIREBRIDGE_INTEGRATION_ID"];
        if (!integration) throw new CliError("--integration is needed (or set HIREBRIDGE_INTEGRATION_ID)", EXIT.USAGE);
        const limit = opts["limit"] === undefined ? DEFAULT_LIMIT : positiveInt(opts["limit"], "--limit", 0);
        const pageSize = opts["pageSize"] === undefined ? undefined : positiveInt(opts["pageSize"], "--page-size", 1);
        const query = {
          ...bodyFromOptions(kind.schema, opts, NOT_FILTERS),
          integration_id: integration,
          ...(pageSize ? { page_size: pageSize } : limit ? { page_size: Math.min(limit, PAGE_SIZE_MAX) } : {}),
        };
        const rows: AnyRecord[] = [];
        for await (const record of kind.lister(await ctx.client()).iterate(query as never)) {
          rows.push(record as AnyRecord);
          if (limit && rows.length >= limit) break;
        }
        ctx.out.table(rows, kind.columns);
      }),
    );
    examples(cmd, [
      `hirebridge ats ${kind.command} --integration greenhouse:8d1h…`,
      `hirebridge --json ats ${kind.command} -i greenhouse:8d1h… --limit 0 > ${kind.command}.json`,
      ...(kind.command === "applications"
        ? ["hirebridge ats applications -i greenhouse:8d1h… --job-ids 3xYz…,9AbC… --outcome PENDING"]
        : []),
    ]);
  }
};
