import type { Command } from "commander";
import { CliError, EXIT } from "../cli-errors.js";
import { examples, type Run } from "../command.js";
import { confirm } from "../prompt.js";

/**
 * `positions erase`: a position erased with all its candidates (DELETE /org/{org_id}/position/{id},
 * docs/privacy.md "Erasure"). Asks first unless --yes; says what was erased, by kind, and that the
 * ATS keeps its own copy.
 */
export function registerPositionEraseCommand(positions: Command, run: Run): void {
  const erase = positions
    .command("erase")
    .description(
      "Erase a position and the personal data of all its candidates from every place Hirebridge keeps it (tombstones of ids stay; a template leaves the assessment packages; the ATS keeps its own copy, erase it there). Cannot be undone; asks unless --yes.",
    )
    .requiredOption("--position <position-id>", "the position to erase")
    .option("--reason <text>", "why (kept with the tombstones; no personal data)")
    .option("-y, --yes", "do not ask (for scripts)")
    .action(
      run(async (ctx, _args, opts) => {
        const positionId = String(opts["position"]);
        if (opts["yes"] !== true) {
          const ok = await confirm(
            ctx.terminal,
            `Erase position ${positionId} and all its candidates' data in Hirebridge? This cannot be undone.`,
          );
          if (!ok) throw new CliError("Nothing erased: not confirmed (pass --yes to skip the question)", EXIT.FAILURE);
        }
        const reason = opts["reason"] === undefined ? {} : { reason: String(opts["reason"]) };
        const answer = await (await ctx.client()).positions.erase(positionId, reason);
        const kinds = Object.entries(answer.erased).filter(([, n]) => n > 0);
        ctx.out.result(answer, () =>
          [`Erased position ${positionId}:`, ...kinds.map(([kind, n]) => `  ${kind}: ${n}`), answer.ats_copy].join("\n"),
        );
      }),
    );
  examples(erase, [
    'hirebridge positions erase --position 3f0c… --reason "position closed"',
    "hirebridge positions erase --position 3f0c… --yes",
  ]);
}
