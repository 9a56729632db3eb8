import type { Command } from "commander";
import { UPSTREAM_ORDER_STATUSES, type AssessmentOrdersQuery } from "../../contracts/proxy/assessment.js";
import { PAGE_SIZE_MAX } from "../../contracts/proxy/common.js";
import type { AssessmentOrder as ReceivedOrder } from "../../contracts/proxy/assessment-orders.js";
import type { AssessmentOrder, AssessmentPackage } from "../../contracts/upstream/assessment.js";
import { CliError, EXIT } from "../cli-errors.js";
import { integrationOf, type CliContext } from "../context.js";
import type { Column } from "../output.js";
import { examples, type RegisterCommands, type Run } from "../command.js";

/** A timestamp to the second (the table's; --json keeps the API's own). */
const second = (at: string | null) => at?.replace(/\.\d+Z$/, "Z") ?? null;

/** At 80 columns: the id whole, the name and type; the description and the date leave first. */
const PACKAGE_COLUMNS: Column<AssessmentPackage>[] = [
  { header: "ID", value: (p) => p.id },
  { header: "NAME", value: (p) => p.name, maxWidth: 32 },
  { header: "TYPE", value: (p) => p.type },
  { header: "UPDATED", value: (p) => second(p.updated_at), drop: 1 },
  { header: "DESCRIPTION", value: (p) => p.description, maxWidth: 40, drop: 2 },
];

const person = (c: AssessmentOrder["candidate"]) => [c.first_name, c.last_name].filter(Boolean).join(" ") || c.email;

/**
 * At 80 columns: the order id whole, status and candidate; the package id (a whole id, never cut)
 * leaves first when it does not fit, then the email and the job (--json keeps everything).
 */
const ORDER_COLUMNS: Column<AssessmentOrder>[] = [
  { header: "ID", value: (o) => o.id },
  { header: "STATUS", value: (o) => o.status },
  { header: "CANDIDATE", value: (o) => person(o.candidate), maxWidth: 24 },
  { header: "PACKAGE", value: (o) => o.package_id, id: true, drop: 3 },
  { header: "EMAIL", value: (o) => o.candidate.email, maxWidth: 28, drop: 2 },
  { header: "JOB", value: (o) => o.job.name, maxWidth: 24, drop: 1 },
];

/** A received order's status in the ATS's words: REJECTED when Hirebridge refused it, else the result's status. */
const statusOf = (o: ReceivedOrder) => (o.status === "rejected" ? "REJECTED" : o.result_status);

/** At 80 columns: the order id whole, status, candidate and package by name; the time and candidate id leave first. */
const RECEIVED_COLUMNS: Column<ReceivedOrder>[] = [
  { header: "ORDER", value: (o) => o.order_id, id: true },
  { header: "STATUS", value: statusOf },
  { header: "CANDIDATE", value: (o) => o.candidate_name, maxWidth: 22 },
  { header: "PACKAGE", value: (o) => o.package_name ?? o.package_id, maxWidth: 22 },
  { header: "RECEIVED", value: (o) => second(o.created_at), drop: 1 },
  { header: "MESSAGE", value: (o) => o.message, maxWidth: 32, drop: 2 },
  { header: "CANDIDATE ID", value: (o) => o.candidate_id, id: true, drop: 3 },
];

/** What `packages publish` sent: the templates as packages. */
const PUBLISHED_COLUMNS: Column<{ id: string; name: string; type: string }>[] = [
  { header: "ID", value: (p) => p.id },
  { header: "NAME", value: (p) => p.name, maxWidth: 32 },
  { header: "TYPE", value: (p) => p.type, drop: 1 },
];

const DEFAULT_LIMIT = 50;

function limitOf(raw: unknown): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new CliError("--limit must be a whole number >= 0", EXIT.USAGE);
  return n;
}

/** `--status open,completed` → `OPEN,COMPLETED`, each checked against the upstream's statuses. */
function statusesOf(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  const statuses = String(raw)
    .split(",")
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
  const known: readonly string[] = UPSTREAM_ORDER_STATUSES;
  const unknown = statuses.filter((s) => !known.includes(s));
  if (unknown.length > 0 || statuses.length === 0) {
    throw new CliError(`--status takes ${UPSTREAM_ORDER_STATUSES.join(", ")} (comma-separated)`, EXIT.USAGE);
  }
  return statuses.join(",");
}

const withIntegration = (cmd: Command) => cmd.option("-i, --integration <id>", "integration id (env HIREBRIDGE_INTEGRATION_ID)");

function registerPackageCommands(assessment: Command, run: Run): void {
  const packages = assessment.command("packages").description("The packages the ATS offers its recruiters (what they can order).");
  const list = withIntegration(packages.command("list").description("List the integration's packages, as the ATS has them.")).action(
    run(async (ctx, _args, opts) => {
      const integration = integrationOf(ctx, opts["integration"] as string | undefined);
      const { data } = await (await ctx.client()).assessment.packages.list(integration);
      ctx.out.table(data.packages, PACKAGE_COLUMNS);
    }),
  );
  examples(list, ["hirebridge assessment packages list --integration workday:8d1h…"]);
  const publish = withIntegration(
    packages
      .command("publish")
      .description("Publish your positions in state template to the integration now, as its packages (Hirebridge also does so by itself)."),
  ).action(
    run(async (ctx, _args, opts) => {
      const integration = integrationOf(ctx, opts["integration"] as string | undefined);
      const result = await (await ctx.client()).assessment.packages.publish(integration);
      ctx.out.table(result.packages, PUBLISHED_COLUMNS, result);
      ctx.out.note(`${result.packages.length} package(s) published at ${second(result.published_at)}`);
    }),
  );
  examples(publish, ["hirebridge assessment packages publish --integration workday:8d1h…"]);
}

/** The ATS's own list of orders, read live through the proxy (`--live`). */
async function liveOrders(ctx: CliContext, integration: string, limit: number, statuses: string | undefined) {
  const query: AssessmentOrdersQuery = {
    integration_id: integration,
    page_size: limit ? Math.min(limit, PAGE_SIZE_MAX) : PAGE_SIZE_MAX,
    ...(statuses ? { statuses } : {}),
  };
  const rows: AssessmentOrder[] = [];
  for await (const order of (await ctx.client()).assessment.orders.iterate(query)) {
    rows.push(order);
    if (limit && rows.length >= limit) break;
  }
  ctx.out.table(rows, ORDER_COLUMNS);
}

/** The orders Hirebridge received, newest first, filtered by their status in the ATS's words. */
async function receivedOrders(ctx: CliContext, integration: string, limit: number, statuses: string | undefined) {
  const wanted = statuses ? new Set(statuses.split(",")) : null;
  const rows: ReceivedOrder[] = [];
  const pageSize = limit && !wanted ? Math.min(limit, RECEIVED_PAGE_MAX) : RECEIVED_PAGE_MAX;
  for await (const order of (await ctx.client()).assessment.iterateReceivedOrders(integration, { limit: pageSize })) {
    if (wanted && !wanted.has(statusOf(order))) continue;
    rows.push(order);
    if (limit && rows.length >= limit) break;
  }
  ctx.out.table(rows, RECEIVED_COLUMNS);
}

/** The largest page of Hirebridge's received-orders listing. */
const RECEIVED_PAGE_MAX = 200;

function registerOrderCommands(assessment: Command, run: Run): void {
  const orders = assessment.command("orders").description("Orders recruiters placed in the ATS.");
  const list = withIntegration(
    orders
      .command("list")
      .description(
        "List the orders Hirebridge received (status, candidate, package), newest first; --live reads the ATS's own list instead.",
      )
      .option("--status <statuses>", `only these statuses, comma-separated: ${UPSTREAM_ORDER_STATUSES.join(", ")}`)
      .option("--live", "read the orders from the ATS (through the proxy) rather than Hirebridge's records")
      .option("--limit <n>", `at most this many orders; 0 for all (default ${DEFAULT_LIMIT})`),
  ).action(
    run(async (ctx, _args, opts) => {
      const integration = integrationOf(ctx, opts["integration"] as string | undefined);
      const limit = limitOf(opts["limit"]);
      const statuses = statusesOf(opts["status"]);
      await (opts["live"] ? liveOrders : receivedOrders)(ctx, integration, limit, statuses);
    }),
  );
  examples(list, [
    "hirebridge assessment orders list --integration workday:8d1h…",
    "hirebridge assessment orders list -i workday:8d1h… --status completed,rejected --limit 0",
    "hirebridge --json assessment orders list -i workday:8d1h… --live --status open",
  ]);
}

export const registerAssessmentCommands: RegisterCommands = (program, run) => {
  const assessment = program
    .command("assessment")
    .description("The assessment channel of an integration: packages offered in the ATS and the orders placed there.");
  registerPackageCommands(assessment, run);
  registerOrderCommands(assessment, run);
};
