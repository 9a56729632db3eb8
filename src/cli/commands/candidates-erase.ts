import type { Command } from "commander";
import { CliError, EXIT } from "../cli-errors.js";
import { examples, type Run } from "../command.js";
import { confirm } from "../prompt.js";

/**
 * `candidates erase`: a candidate's personal data erased from Hirebridge (DELETE …/candidates/{id}/,
 * docs/privacy.md "Erasure"). Asks first unless --yes; says what was erased, by kind, and that the
 * ATS keeps its own copy.
 */
export function registerCandidateEraseCommand(candidates: Command, run: Run): void {
  const erase = candidates
    .command("erase")
    .description(
      "Erase a candidate's personal data from every place Hirebridge keeps it (a tombstone of ids stays; the sync does not bring them back; the ATS keeps its own copy, erase it there). Cannot be undone; asks unless --yes.",
    )
    .requiredOption("--position <position-id>", "the candidate's position")
    .requiredOption("--candidate <candidate-id>", "the candidate to erase")
    .option("--reason <text>", "why (kept with the tombstone; no personal data)")
    .option("-y, --yes", "do not ask (for scripts)")
    .action(
      run(async (ctx, _args, opts) => {
        const positionId = String(opts["position"]);
        const candidateId = String(opts["candidate"]);
        if (opts["yes"] !== true) {
          const ok = await confirm(ctx.terminal, `Erase candidate ${candidateId} and all their data in Hirebridge? This cannot be undone.`);
          if (!ok) throw new CliError("Nothing erased: not confirmed (pass --yes to skip the question)", EXIT.FAILURE);
        }
        const reason = opts["reason"] === undefined ? {} : { reason: String(opts["reason"]) };
        const answer = await (await ctx.client()).candidates.erase(positionId, candidateId, reason);
        const kinds = Object.entries(answer.erased).filter(([, n]) => n > 0);
        ctx.out.result(answer, () =>
          [`Erased candidate ${candidateId}:`, ...kinds.map(([kind, n]) => `  ${kind}: ${n}`), answer.ats_copy].join("\n"),
        );
      }),
    );
  examples(erase, [
    'hirebridge candidates erase --position 3f0c… --candidate 9a1b… --reason "data subject request"',
    "hirebridge candidates erase --position 3f0c… --candidate 9a1b… --yes",
  ]);
}
