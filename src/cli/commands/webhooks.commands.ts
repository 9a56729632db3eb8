import type { WebhookDelivery, WebhookEndpoint, WebhookEndpointCreated } from "../../contracts/webhooks-out/endpoints.js";
import { EVENT_TYPES, type EventType } from "../../contracts/webhooks-out/events.js";
import { plainText } from "../../contracts/webhooks-out/plain-text.js";
import { CliError, EXIT } from "../cli-errors.js";
import { examples, type RegisterCommands } from "../command.js";
import type { Column } from "../output.js";
import { listen } from "./webhooks-listen.js";

const COLUMNS: Column<WebhookEndpoint>[] = [
  { header: "ID", value: (e) => e.id },
  { header: "URL", value: (e) => e.url, maxWidth: 48 },
  { header: "EVENTS", value: (e) => (e.event_types.length ? e.event_types : "all"), maxWidth: 40, drop: 2 },
  { header: "STATE", value: (e) => (e.disabled ? "disabled" : e.failing_since ? "failing" : "enabled") },
  { header: "DESCRIPTION", value: (e) => e.description, maxWidth: 30, drop: 1 },
];

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

/** `--events a,b` as event types (each checked). */
export function eventTypesOf(value: unknown): EventType[] | undefined {
  if (value === undefined) return undefined;
  const types = String(value)
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = types.filter((t) => !EVENT_TYPES.includes(t as EventType));
  if (unknown.length) throw new CliError(`Unknown event type ${unknown.join(", ")} (see: hirebridge webhooks event-types)`, EXIT.USAGE);
  return types as EventType[];
}

const endpointFields = (e: WebhookEndpoint | WebhookEndpointCreated): [string, unknown][] => Object.entries(e);

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

export const registerWebhookCommands: RegisterCommands = (program, run) => {
  const webhooks = program
    .command("webhooks")
    .description("Your organisation's webhook endpoints: where Hirebridge sends signed events (Standard Webhooks).");

  const list = webhooks
    .command("list")
    .description("List the webhook endpoints.")
    .action(
      run(async (ctx) => {
        const { items } = await (await ctx.client()).webhookEndpoints.list();
        ctx.out.table(items, COLUMNS);
      }),
    );
  examples(list, ["hirebridge webhooks list"]);

  const create = webhooks
    .command("create")
    .description("Add an endpoint; its signing secret is shown this once.")
    .requiredOption("--url <url>", "where events are POSTed (https://, or http://localhost on the embedded default)")
    .option("--events <types>", "comma-separated event types (default: all)")
    .option("--description <text>", "what it is for")
    .action(
      run(async (ctx, _args, opts) => {
        const events = eventTypesOf(opts["events"]);
        const endpoint = await (await ctx.client()).webhookEndpoints.create({
          url: String(opts["url"]),
          ...(events ? { event_types: events } : {}),
          ...(opts["description"] !== undefined ? { description: String(opts["description"]) } : {}),
        });
        ctx.out.record(endpoint, endpointFields(endpoint));
        ctx.out.note("Keep the secret now: it is not shown again (rotate-secret makes a new one).");
      }),
    );
  examples(create, [
    "hirebridge webhooks create --url https://example.com/hooks --events candidate.created,interview.updated",
    "hirebridge --json webhooks create --url https://example.com/hooks | jq -r .secret",
  ]);

  const show = webhooks
    .command("show")
    .description("Show one endpoint.")
    .argument("<endpoint-id>")
    .action(
      run(async (ctx, [id]) => {
        const endpoint = await (await ctx.client()).webhookEndpoints.get(id!);
        ctx.out.record(endpoint, endpointFields(endpoint));
      }),
    );
  examples(show, ["hirebridge webhooks show 3f0c…"]);
  registerEndpointChangeCommands(webhooks, run);
};

/** Changing an endpoint (update, delete, rotate-secret), its deliveries and `listen`. */
const registerEndpointChangeCommands: RegisterCommands = (webhooks, run) => {
  const update = webhooks
    .command("update")
    .description("Change an endpoint: its URL, event types, description, or whether it is enabled.")
    .argument("<endpoint-id>")
    .option("--url <url>", "new URL")
    .option("--events <types>", "comma-separated event types (`all` for every type)")
    .option("--description <text>", "new description")
    .option("--enable", "enable it (again)")
    .option("--disable", "disable it")
    .action(
      run(async (ctx, [id], opts) => {
        const events = opts["events"] === "all" ? [] : eventTypesOf(opts["events"]);
        const body = {
          ...(opts["url"] !== undefined ? { url: String(opts["url"]) } : {}),
          ...(events ? { event_types: events } : {}),
          ...(opts["description"] !== undefined ? { description: String(opts["description"]) } : {}),
          ...(opts["enable"] ? { disabled: false } : opts["disable"] ? { disabled: true } : {}),
        };
        if (Object.keys(body).length === 0) throw new CliError("Nothing to change: give at least one option (see --help)", EXIT.USAGE);
        const endpoint = await (await ctx.client()).webhookEndpoints.update(id!, body);
        ctx.out.record(endpoint, endpointFields(endpoint));
      }),
    );
  examples(update, ["hirebridge webhooks update 3f0c… --enable", "hirebridge webhooks update 3f0c… --events all"]);

  const remove = webhooks
    .command("delete")
    .description("Delete an endpoint (it receives nothing more).")
    .argument("<endpoint-id>")
    .action(
      run(async (ctx, [id]) => {
        await (await ctx.client()).webhookEndpoints.delete(id!);
        ctx.out.result({ deleted: id }, () => `Deleted ${id}`);
      }),
    );
  examples(remove, ["hirebridge webhooks delete 3f0c…"]);

  const rotate = webhooks
    .command("rotate-secret")
    .description("Make a new signing secret; the old one keeps signing too for a while (see the answer).")
    .argument("<endpoint-id>")
    .action(
      run(async (ctx, [id]) => {
        const rotated = await (await ctx.client()).webhookEndpoints.rotateSecret(id!);
        ctx.out.record(rotated, Object.entries(rotated));
      }),
    );
  examples(rotate, ["hirebridge webhooks rotate-secret 3f0c…"]);

  registerDeliveryCommands(webhooks, run);
  registerListen(webhooks, run);
};

function registerDeliveryCommands(webhooks: ReturnType<Parameters<RegisterCommands>[0]["command"]>, run: Parameters<RegisterCommands>[1]) {
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

  const types = webhooks
    .command("event-types")
    .description("Every event type an endpoint can receive.")
    .action(
      run(async (ctx) => {
        const catalogue = await (await ctx.client()).webhookEndpoints.eventTypes();
        ctx.out.table(
          catalogue.items,
          [
            { header: "TYPE", value: (t) => t.type },
            // Plain text (the catalogue's description may hold markdown); an older server has no description_text.
            { header: "DESCRIPTION", value: (t) => t.description_text ?? plainText(t.description), maxWidth: 90 },
          ],
          catalogue,
        );
      }),
    );
  examples(types, ["hirebridge webhooks event-types", "hirebridge --json webhooks event-types | jq '.items[].type'"]);
}

function registerListen(webhooks: ReturnType<Parameters<RegisterCommands>[0]["command"]>, run: Parameters<RegisterCommands>[1]) {
  const cmd = webhooks
    .command("listen")
    .description(
      "Receive your organisation's events here and forward them to a local server: a temporary endpoint (deleted on exit) points at a listener on this machine. Hirebridge must be able to reach it: on the embedded default (npm start) it can; otherwise pass --public-url (a tunnel to --port).",
    )
    .requiredOption("--forward-to <url>", "where each verified event is POSTed, e.g. http://localhost:3000/hooks")
    .option("--events <types>", "comma-separated event types (default: all)")
    .option("--port <port>", "the listener's port (default: any free one)", "0")
    .option("--host <host>", "the listener's address", "127.0.0.1")
    .option("--public-url <url>", "the listener's URL as Hirebridge reaches it (default: http://<host>:<port>/)")
    .action(
      run(async (ctx, _args, opts) =>
        listen(ctx, {
          forwardTo: String(opts["forwardTo"]),
          events: eventTypesOf(opts["events"]),
          port: Number(opts["port"]),
          host: String(opts["host"]),
          publicUrl: opts["publicUrl"] === undefined ? undefined : String(opts["publicUrl"]),
        }),
      ),
    );
  examples(cmd, [
    "hirebridge webhooks listen --forward-to http://localhost:3000/hooks",
    "hirebridge webhooks listen --forward-to http://localhost:3000/hooks --events candidate.created",
  ]);
}
