import type { Command } from "commander";
import type { WebhookEndpoint, WebhookEndpointCreated } from "../../contracts/webhooks-out/endpoints.js";
import { EVENT_TYPES, type EventType } from "../../contracts/webhooks-out/events.js";
import { plainText } from "../../contracts/webhooks-out/plain-text.js";
import { CliError, EXIT } from "../cli-errors.js";
import { examples, type RegisterCommands, type Run } from "../command.js";
import type { Column } from "../output.js";
import { registerDeliveryCommands } from "./webhooks-deliveries.js";
import { listen } from "./webhooks-listen.js";

const COLUMNS: Column<WebhookEndpoint>[] = [
  { header: "ID", value: (e) => e.id },
  { header: "URL", value: (e) => e.url, maxWidth: 48 },
  { header: "EVENTS", value: (e) => (e.event_types.length ? e.event_types : "all"), maxWidth: 40, drop: 2 },
  { header: "STATE", value: (e) => (e.disabled ? "disabled" : e.failing_since ? "failing" : "enabled") },
  { header: "DESCRIPTION", value: (e) => e.description, maxWidth: 30, drop: 1 },
];

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
  registerEventTypesCommand(webhooks, run);
  registerListen(webhooks, run);
};

/** `webhooks event-types`: every type an endpoint can subscribe to. */
function registerEventTypesCommand(webhooks: Command, run: Run): void {
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
