import type { DataRetentionResponse, DataRetentionUpdate } from "../../contracts/recruiting/data-retention.js";
import { CliError, EXIT } from "../cli-errors.js";
import { examples, type RegisterCommands } from "../command.js";

/** The options of `retention set`, each with the policy field it sets and whether `off` (null) is allowed. */
const SET_OPTIONS = [
  { flag: "--after-last-change <days>", key: "afterLastChange", field: "candidate_days_after_last_change", off: true },
  { flag: "--after-rejection <days>", key: "afterRejection", field: "candidate_days_after_rejection", off: true },
  { flag: "--after-hire <days>", key: "afterHire", field: "candidate_days_after_hire", off: true },
  { flag: "--deleted-integration <days>", key: "deletedIntegration", field: "deleted_integration_days", off: false },
  { flag: "--deleted-application <days>", key: "deletedApplication", field: "deleted_application_days", off: false },
] as const;

/** A days option: a whole number 0–3650, or `off` (null) where the rule can be turned off. */
export function daysOf(name: string, value: unknown, off: boolean): number | null {
  const text = String(value).trim();
  if (off && text === "off") return null;
  if (!/^\d+$/.test(text) || Number(text) > 3650)
    throw new CliError(`${name} takes whole days from 0 to 3650${off ? ", or off" : ""} (got ${text})`, EXIT.USAGE);
  return Number(text);
}

const policyFields = (p: DataRetentionResponse): [string, unknown][] =>
  Object.entries(p).map(([k, v]) => [k, v === null && k !== "updated_at" ? "off" : v]);

export const registerRetentionCommands: RegisterCommands = (program, run) => {
  const retention = program
    .command("retention")
    .description("Your organisation's data retention policy: how long candidates are kept (docs/privacy.md).");

  const show = retention
    .command("show")
    .description("Show the policy (off: the rule does not erase).")
    .action(
      run(async (ctx) => {
        const policy = await (await ctx.client()).dataRetention.get();
        ctx.out.record(policy, policyFields(policy));
      }),
    );
  examples(show, ["hirebridge retention show", "hirebridge --json retention show"]);

  let set = retention
    .command("set")
    .description("Change the rules given; the others keep their value. The retention job erases what becomes due.");
  for (const o of SET_OPTIONS) set = set.option(o.flag, `${o.field}: days${o.off ? ", or off" : ""}`);
  set.action(
    run(async (ctx, _args, opts) => {
      const body: Record<string, number | null> = {};
      for (const o of SET_OPTIONS) {
        if (opts[o.key] !== undefined) body[o.field] = daysOf(o.flag.split(" ")[0]!, opts[o.key], o.off);
      }
      if (Object.keys(body).length === 0) throw new CliError("Give at least one rule to set (see --help)", EXIT.USAGE);
      const policy = await (await ctx.client()).dataRetention.put(body as DataRetentionUpdate);
      ctx.out.record(policy, policyFields(policy));
    }),
  );
  examples(set, ["hirebridge retention set --after-rejection 180 --after-hire 365", "hirebridge retention set --after-hire off"]);
};
