import type { Command } from "commander";
import { examples, type Run } from "../command.js";

/**
 * `candidates export`: everything Hirebridge holds about a candidate as one JSON document
 * (GET …/candidates/{id}/export, docs/privacy.md "Export"), written to stdout whatever the output
 * mode, so `> file` keeps it; the summary line goes to stderr.
 */
export function registerCandidateExportCommand(candidates: Command, run: Run): void {
  const exp = candidates
    .command("export")
    .description(
      "Export everything Hirebridge holds about a candidate as one JSON document, for a data subject access request (the candidate, interview, gradings and corrections, write-backs, events, assessment order, audit entries). Written to stdout: redirect it to a file. The ATS holds its own copy, exported there.",
    )
    .requiredOption("--position <position-id>", "the candidate's position")
    .requiredOption("--candidate <candidate-id>", "the candidate to export")
    .action(
      run(async (ctx, _args, opts) => {
        const doc = await (await ctx.client()).candidates.export(String(opts["position"]), String(opts["candidate"]));
        ctx.out.result(doc, () => JSON.stringify(doc, null, 2));
        const counts = [
          `${doc.write_backs.length} write-back(s)`,
          `${doc.grading_history.length} grading(s)`,
          `${doc.inbound_events.length + doc.outbound_events.length} event(s)`,
          `${doc.audit_entries.length} audit entr${doc.audit_entries.length === 1 ? "y" : "ies"}`,
        ];
        ctx.out.note(`Exported candidate ${doc.candidate.id}: ${counts.join(", ")}.`);
      }),
    );
  examples(exp, ["hirebridge candidates export --position 3f0c… --candidate 9a1b… > candidate-9a1b.json"]);
}
