import type { Command } from "commander";
import type { WebhookDelivery } from "../../contracts/webhooks-out/endpoints.js";
import { EVENT_TYPES, type EventType } from "../../contracts/webhooks-out/events.js";
import { CliError, EXIT } from "../cli-errors.js";
import { examples, type Run } from "../command.js";
import type { Column } from "../output.js";

const DELIVERY_COLUMNS: Column<WebhookDelivery>[] = [
  { header: "ID", value: (d) => d.message_id },
  { header: "TYPE", value: (d) => (d.test ? `${d.type} (test)` : d.type) },
  { header: "STATUS", value: (d) => d.status },
  { header: "ATTEMPTS", value: (d) => d.attempts.length },
  { header: "LAST", value: (d) => lastAttempt(d), maxWidth: 40, drop: 1 },
  { header: "AT", value: (d) => d.timestamp, drop: 2 },
];

const lastAttempt = (d: WebhookDelivery) => {
  const a = d.attempts[0];
  return a ? `${a.status_code ?? a.error ?? "-"} in ${a.latency_ms} ms` : "-";
};

/** One event type (checked), for `trigger`. */
function eventTypeOf(value: unknown): EventType {
  const type = String(value ?? "");
  if (!EVENT_TYPES.includes(type as EventType)) {
    throw new CliError(`Unknown event type ${type} (see: hirebridge webhooks event-types)`, EXIT.USAGE);
  }
  return type as EventType;
}

/** `--since`: an ISO date-time, or a time back from now (30m, 12h, 7d). */
export function sinceOf(value: unknown, now = Date.now()): string {
  const text = String(value ?? "").trim();
  const ago = /^(\d+)\s*(m|h|d)$/.exec(text);
  if (ago) return new Date(now - Number(ago[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[ago[2] as "m" | "h" | "d"]).toISOString();
  const at = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(at)) {
    throw new CliError(`--since takes a date-time (2026-01-31T09:00:00Z) or a time back (30m, 12h, 7d), not "${text}"`, EXIT.USAGE);
  }
  return new Date(at).toISOString();
}

/** A delivery for people: its ids and status, the payload sent, then each attempt with its headers. */
function renderDelivery(d: WebhookDelivery): string {
  const lines = [
    `webhook-id: ${d.webhook_id}`,
    `type:       ${d.type}${d.test ? " (test event)" : ""}`,
    `status:     ${d.status}${d.next_attempt_at ? ` (next attempt ${d.next_attempt_at})` : ""}`,
    "payload:",
    ...JSON.stringify(d.payload, null, 2)
      .split("\n")
      .map((l) => `  ${l}`),
  ];
  for (const a of d.attempts) {
    lines.push(
      `attempt ${a.attempt} at ${a.attempted_at}: ${a.status_code ?? a.error ?? "-"} in ${a.latency_ms} ms${a.manual ? " (re-send)" : ""}`,
    );
    for (const [name, value] of Object.entries(a.request_headers ?? {})) lines.push(`  ${name}: ${value}`);
  }
  return lines.join("\n");
}

/** `webhooks deliveries` (an endpoint's, newest first) and `webhooks delivery` (one, with its attempts' headers). */
function registerDeliveryReadCommands(webhooks: Command, run: Run): void {
  const deliveries = webhooks
    .command("deliveries")
    .description("An endpoint's recent deliveries, newest first, with their attempts.")
    .argument("<endpoint-id>")
    .option("--status <status>", "only pending, succeeded or failed ones")
    .option("--limit <n>", "how many (default 20, at most 100)", "20")
    .option("--cursor <cursor>", "the next page: the cursor the previous page named")
    .action(
      run(async (ctx, [id], opts) => {
        const status = opts["status"] as WebhookDelivery["status"] | undefined;
        const page = await (await ctx.client()).webhookEndpoints.deliveries(id!, {
          limit: Number(opts["limit"]),
          ...(status ? { status } : {}),
          ...(opts["cursor"] !== undefined ? { cursor: String(opts["cursor"]) } : {}),
        });
        ctx.out.table(page.items, DELIVERY_COLUMNS, page);
        if (page.next_cursor && !ctx.out.json) ctx.out.note(`More: --cursor ${page.next_cursor}`);
      }),
    );
  examples(deliveries, [
    "hirebridge webhooks deliveries 3f0c… --status failed",
    "hirebridge webhooks deliveries 3f0c… --limit 50 --cursor 01a2…",
  ]);

  const delivery = webhooks
    .command("delivery")
    .description("One delivery: its webhook-id, the payload sent, and each attempt with the headers it was sent with.")
    .argument("<endpoint-id>")
    .argument("<event-id>")
    .action(
      run(async (ctx, [endpoint, message]) => {
        const d = await (await ctx.client()).webhookEndpoints.delivery(endpoint!, message!);
        ctx.out.result(d, () => renderDelivery(d));
      }),
    );
  examples(delivery, ["hirebridge webhooks delivery 3f0c… 01a2…", "hirebridge --json webhooks delivery 3f0c… 01a2… | jq .payload"]);
}

/** `webhooks trigger` (a test event), `resend-failed` and `resend`: deliveries sent (again) now. */
function registerDeliverySendCommands(webhooks: Command, run: Run): void {
  const trigger = webhooks
    .command("trigger")
    .description("Send a signed example event of a type to an endpoint (as the Stripe CLI's trigger); its body says test: true.")
    .argument("<event-type>")
    .requiredOption("--endpoint <endpoint-id>", "the endpoint to send it to")
    .action(
      run(async (ctx, [type], opts) => {
        const endpoint = String(opts["endpoint"]);
        const sent = await (await ctx.client()).webhookEndpoints.sendTestEvent(endpoint, eventTypeOf(type));
        ctx.out.result(sent, () => `Sent a test ${sent.type} event ${sent.message_id} to ${endpoint}`);
        if (!ctx.out.json) ctx.out.note(`Its delivery: hirebridge webhooks delivery ${endpoint} ${sent.message_id}`);
      }),
    );
  examples(trigger, ["hirebridge webhooks trigger candidate.created --endpoint 3f0c…"]);

  const resendFailed = webhooks
    .command("resend-failed")
    .description("Deliver again every event whose delivery to an endpoint failed since a time.")
    .requiredOption("--endpoint <endpoint-id>", "the endpoint")
    .requiredOption("--since <time>", "a date-time (2026-01-31T09:00:00Z) or a time back (30m, 12h, 7d)")
    .action(
      run(async (ctx, _args, opts) => {
        const since = sinceOf(opts["since"]);
        const answer = await (await ctx.client()).webhookEndpoints.resendFailed(String(opts["endpoint"]), since);
        ctx.out.result(answer, () => `Queued ${answer.queued} failed deliveries since ${answer.since} again`);
      }),
    );
  examples(resendFailed, [
    "hirebridge webhooks resend-failed --endpoint 3f0c… --since 24h",
    "hirebridge webhooks resend-failed --endpoint 3f0c… --since 2026-01-31T09:00:00Z",
  ]);

  const resend = webhooks
    .command("resend")
    .description("Deliver an event to an endpoint again, now (same webhook-id).")
    .argument("<endpoint-id>")
    .argument("<event-id>")
    .action(
      run(async (ctx, [endpoint, message]) => {
        const queued = await (await ctx.client()).webhookEndpoints.resend(endpoint!, message!);
        ctx.out.record(queued, Object.entries(queued));
      }),
    );
  examples(resend, ["hirebridge webhooks resend 3f0c… 01a2…"]);
}

/** An endpoint's deliveries: reading them, sending a test event, and sending again. */
export function registerDeliveryCommands(webhooks: Command, run: Run): void {
  registerDeliveryReadCommands(webhooks, run);
  registerDeliverySendCommands(webhooks, run);
}
