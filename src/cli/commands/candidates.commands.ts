import {
  CandidateCreateSchema,
  CandidateUpdateSchema,
  type Candidate,
  type CandidateCreate,
} from "../../contracts/recruiting/candidates.js";
import type { Interview } from "../../contracts/recruiting/interviews.js";
import type { Hirebridge } from "../../client/index.js";
import { readBulkFile, type BulkFormat } from "../bulk-file.js";
import { CliError, EXIT } from "../cli-errors.js";
import type { Column } from "../output.js";
import { examples, type RegisterCommands } from "../command.js";
import { addSchemaOptions, bodyFromOptions } from "../schema-options.js";
import { registerCandidateEraseCommand } from "./candidates-erase.js";
import { registerCandidateExportCommand } from "./candidates-export.js";

const COLUMNS: Column<Candidate>[] = [
  { header: "ID", value: (c) => c.id },
  { header: "NAME", value: (c) => c.name, maxWidth: 28 },
  { header: "EMAIL", value: (c) => c.email, maxWidth: 32 },
  { header: "STATE", value: (c) => c.state },
  { header: "SCORE", value: (c) => c.score },
  { header: "SHORT-LISTED", value: (c) => (c.short_listed ? "yes" : "no"), drop: 3 },
  { header: "HIRED", value: (c) => (c.hired ? "yes" : "no"), drop: 2 },
  { header: "TAGS", value: (c) => c.tags, maxWidth: 24, drop: 1 },
];

/** A candidate with its interview's status and score (what `candidates list` shows people). */
type Listed = Candidate & { interview: Pick<Interview, "status" | "score"> | null };

/**
 * `candidates list` for people: the interview's status and score beside the candidate's state
 * (the score is the interview's, graded or corrected). At 80 columns the id, name, interview and
 * score stay; tags, hired, short-listed and then the email leave first, in that order.
 */
const LIST_COLUMNS: Column<Listed>[] = [
  { header: "ID", value: (c) => c.id },
  { header: "NAME", value: (c) => c.name, maxWidth: 28, min: 12 },
  { header: "EMAIL", value: (c) => c.email, maxWidth: 32, drop: 1 },
  { header: "STATE", value: (c) => c.state },
  { header: "INTERVIEW", value: (c) => c.interview?.status ?? null },
  { header: "SCORE", value: (c) => c.interview?.score ?? c.score },
  { header: "SHORT-LISTED", value: (c) => (c.short_listed ? "yes" : "no"), drop: 2 },
  { header: "HIRED", value: (c) => (c.hired ? "yes" : "no"), drop: 3 },
  { header: "TAGS", value: (c) => c.tags, maxWidth: 24, drop: 4 },
];

/** Each candidate's interview, a few requests at a time (null where there is none, or it cannot be read). */
async function withInterviews(hb: Hirebridge, positionId: string, candidates: Candidate[]): Promise<Listed[]> {
  const out: Listed[] = candidates.map((c) => ({ ...c, interview: null }));
  let next = 0;
  const worker = async () => {
    while (next < out.length) {
      const row = out[next++]!;
      try {
        const { status, score } = await hb.interviews.get(positionId, row.id);
        row.interview = { status, score };
      } catch {
        row.interview = null;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, out.length) }, worker));
  return out;
}

const fields = (c: object): [string, unknown][] => Object.entries(c);

/** The statuses a result can report (not_started is where interviews begin, not a result). */
const RESULT_STATUSES = ["graded", "completed", "errored", "cancelled"] as const;

export const registerCandidateCommands: RegisterCommands = (program, run) => {
  const candidates = program.command("candidates").description("Candidates of a position.");

  const list = candidates
    .command("list")
    .description("List the candidates of a position, with each one's interview status and score.")
    .argument("<position-id>")
    .action(
      run(async (ctx, [positionId]) => {
        const hb = await ctx.client();
        const candidates = await hb.candidates.list(positionId!);
        // --json is the API's answer (no interview reads); people get each interview's status and score.
        if (ctx.out.json) ctx.out.table(candidates, COLUMNS);
        else ctx.out.table(await withInterviews(hb, positionId!, candidates), LIST_COLUMNS, candidates);
      }),
    );
  examples(list, ["hirebridge candidates list 3f0c…", "hirebridge --json candidates list 3f0c… > candidates.json"]);

  const add = addSchemaOptions(
    candidates
      .command("add")
      .description("Add a candidate to a position (their interview record is created with them).")
      .argument("<position-id>"),
    CandidateCreateSchema,
    { enforceRequired: true },
  ).action(
    run(async (ctx, [positionId], opts) => {
      const body = bodyFromOptions(CandidateCreateSchema, opts) as CandidateCreate;
      const candidate = await (await ctx.client()).candidates.create(positionId!, body);
      ctx.out.record(candidate, fields(candidate));
    }),
  );
  examples(add, [
    'hirebridge candidates add 3f0c… --name "Ada Lovelace" --email ada@example.com --phone "+44 20 7946 0000" --language en --tags python,sql',
  ]);

  const show = candidates
    .command("show")
    .description("Show one candidate.")
    .argument("<position-id>")
    .argument("<candidate-id>")
    .action(
      run(async (ctx, [positionId, candidateId]) => {
        const candidate = await (await ctx.client()).candidates.get(positionId!, candidateId!);
        ctx.out.record(candidate, fields(candidate));
      }),
    );
  examples(show, ["hirebridge candidates show 3f0c… 9a1b…"]);

  const update = addSchemaOptions(
    candidates
      .command("update")
      .description("Change the given fields of a candidate.")
      .argument("<position-id>")
      .argument("<candidate-id>"),
    CandidateUpdateSchema,
  ).action(
    run(async (ctx, [positionId, candidateId], opts) => {
      const body = bodyFromOptions(CandidateUpdateSchema, opts);
      if (Object.keys(body).length === 0) throw new CliError("Nothing to change: give at least one field option (see --help)", EXIT.USAGE);
      const candidate = await (await ctx.client()).candidates.update(positionId!, candidateId!, body);
      ctx.out.record(candidate, fields(candidate));
    }),
  );
  examples(update, ["hirebridge candidates update 3f0c… 9a1b… --state invited --short-listed true"]);
  registerBulkUpdateCommand(candidates, run);
  registerCandidateEraseCommand(candidates, run);
  registerCandidateExportCommand(candidates, run);
  registerInterviewCommands(program, run);
};

/** `candidates bulk-update`: many candidates from a file, all or nothing. */
const registerBulkUpdateCommand: RegisterCommands = (candidates, run) => {
  const bulk = candidates
    .command("bulk-update")
    .description("Update many candidates of a position from a CSV or JSON file, in one transaction (all or nothing).")
    .argument("<position-id>")
    .argument("<file>", "a .csv with a header row (id plus the fields to change) or a .json array of {id, …}")
    .option("--format <format>", "csv or json (default: from the file extension)")
    .action(
      run(async (ctx, [positionId, file], opts) => {
        const format = opts["format"] as string | undefined;
        if (format !== undefined && format !== "csv" && format !== "json") throw new CliError("--format must be csv or json", EXIT.USAGE);
        const items = await readBulkFile(file!, format as BulkFormat | undefined);
        const updated = await (await ctx.client()).candidates.bulkUpdate(positionId!, items);
        ctx.out.table(updated, COLUMNS);
        if (!ctx.out.json) ctx.out.note(`Updated ${updated.length} candidate(s).`);
      }),
    );
  examples(bulk, [
    "hirebridge candidates bulk-update 3f0c… shortlist.csv",
    "printf 'id,state,short_listed\\n9a1b…,invited,true\\n' > shortlist.csv",
    "hirebridge candidates bulk-update 3f0c… changes.json",
  ]);
};

/** `interview show`, `result` and `correct`: a candidate's interview record. */
const registerInterviewCommands: RegisterCommands = (program, run) => {
  const interview = program.command("interview").description("A candidate's interview record.");
  const showInterview = interview
    .command("show")
    .description("Show a candidate's interview: status, score, feedback, links, times.")
    .argument("<position-id>")
    .argument("<candidate-id>")
    .action(
      run(async (ctx, [positionId, candidateId]) => {
        const record: Interview = await (await ctx.client()).interviews.get(positionId!, candidateId!);
        ctx.out.record(record, fields(record));
      }),
    );
  examples(showInterview, ["hirebridge interview show 3f0c… 9a1b…", "hirebridge --json interview show 3f0c… 9a1b… | jq .status"]);

  const result = interview
    .command("result")
    .description(
      "Record an interview's result, as the interview runner would: graded (with --score, and --feedback), or completed, errored, cancelled. " +
        "Grading a not-started interview completes it first (the API's two steps in one), so a write-back follows when the position has auto_update_stages.",
    )
    .argument("<position-id>")
    .argument("<candidate-id>")
    .option("--status <status>", `${RESULT_STATUSES.join(", ")} (default graded)`, "graded")
    .option("--score <n>", "the score (needed to grade)")
    .option("--feedback <text>", "feedback for the recruiter (also the ATS note)")
    .action(
      run(async (ctx, [positionId, candidateId], opts) => {
        const status = String(opts["status"]) as (typeof RESULT_STATUSES)[number];
        if (!RESULT_STATUSES.includes(status)) throw new CliError(`--status must be one of ${RESULT_STATUSES.join(", ")}`, EXIT.USAGE);
        const score = opts["score"] === undefined ? undefined : Number(opts["score"]);
        if (score !== undefined && !Number.isInteger(score)) throw new CliError("--score must be a whole number", EXIT.USAGE);
        if (status === "graded" && score === undefined) throw new CliError("Grading needs --score", EXIT.USAGE);
        const feedback = opts["feedback"] === undefined ? undefined : String(opts["feedback"]);
        const hb = await ctx.client();
        const current = await hb.interviews.get(positionId!, candidateId!);
        const now = new Date().toISOString();
        if (status === "graded" && current.status === "not_started") {
          await hb.interviews.update(positionId!, candidateId!, { status: "completed", end_time: now });
        }
        const record = await hb.interviews.update(positionId!, candidateId!, {
          status,
          ...(status !== "graded" && current.end_time === null ? { end_time: now } : {}),
          ...(score !== undefined ? { score } : {}),
          ...(feedback !== undefined ? { feedback } : {}),
        });
        ctx.out.record(record, fields(record));
      }),
    );
  examples(result, [
    'hirebridge interview result 3f0c… 9a1b… --score 85 --feedback "Clear and structured answers."',
    "hirebridge interview result 3f0c… 9a1b… --status cancelled",
  ]);
  registerCorrectCommand(interview, run);
};

/** `interview correct`: the correction path of a graded result (which `interview result` refuses to change). */
const registerCorrectCommand: RegisterCommands = (interview, run) => {
  const correct = interview
    .command("correct")
    .description(
      "Correct a graded interview's result: the score (and --feedback) change, and the ATS is told with a corrective write-back that says why (--reason). A graded result is final otherwise.",
    )
    .argument("<position-id>")
    .argument("<candidate-id>")
    .requiredOption("--score <n>", "the corrected score")
    .requiredOption("--reason <text>", "why the result is corrected (kept, and written to the ATS note)")
    .option("--feedback <text>", "the corrected feedback")
    .action(
      run(async (ctx, [positionId, candidateId], opts) => {
        const score = Number(opts["score"]);
        if (!Number.isInteger(score)) throw new CliError("--score must be a whole number", EXIT.USAGE);
        const feedback = opts["feedback"] === undefined ? {} : { feedback: String(opts["feedback"]) };
        const record = await (await ctx.client()).interviews.correct(positionId!, candidateId!, {
          score,
          reason: String(opts["reason"]),
          ...feedback,
        });
        ctx.out.record(record, fields(record));
      }),
    );
  examples(correct, ['hirebridge interview correct 3f0c… 9a1b… --score 50 --reason "Scored against the wrong rubric"']);
};
