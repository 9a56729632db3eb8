import {
  ConnectCreateLinkRequestSchema,
  RelinkRequestSchema,
  type ConnectCreateLinkRequest,
  type IntegrationSummary,
} from "../../contracts/proxy/index.js";
import type { CustomField, IntegrationField } from "../../contracts/upstream/integration-records.js";
import { CliError, EXIT } from "../cli-errors.js";
import type { Column } from "../output.js";
import type { Command } from "commander";
import { examples, type RegisterCommands, type Run } from "../command.js";
import { confirm } from "../prompt.js";
import { addSchemaOptions, bodyFromOptions } from "../schema-options.js";

const FIELD_COLUMNS: Column<IntegrationField>[] = [
  { header: "ID", value: (f) => f.id },
  { header: "MODEL", value: (f) => f.model },
  { header: "KEY", value: (f) => f.key, maxWidth: 32 },
  { header: "TYPE", value: (f) => f.type },
  { header: "LABEL", value: (f) => f.label, maxWidth: 28 },
  { header: "PASSTHROUGH", value: (f) => (f.is_passthrough_enabled ? "on" : "off") },
];

const CUSTOM_FIELD_COLUMNS: Column<CustomField>[] = [
  { header: "ID", value: (f) => f.id },
  { header: "MODEL", value: (f) => f.model },
  { header: "KEY", value: (f) => f.key, maxWidth: 32 },
  { header: "LABEL", value: (f) => f.label, maxWidth: 28 },
  { header: "MAPPED TO", value: (f) => f.integration_field?.key ?? null, maxWidth: 28 },
  // The mapped field's id whole (never cut inside the MAPPED TO text); it leaves first when the width is short.
  { header: "FIELD ID", value: (f) => f.integration_field?.id ?? null, id: true, drop: 1 },
];

const SUMMARY_COLUMNS: Column<IntegrationSummary>[] = [
  // Without a name the API answers the id, which the ID column shows whole: not again, cut.
  { header: "NAME", value: (i) => (i.display_name === i.id ? null : i.display_name), maxWidth: 28 },
  { header: "ID", value: (i) => i.id },
  { header: "TOOL", value: (i) => i.tool },
  { header: "CATEGORY", value: (i) => i.category, drop: 5 },
  { header: "STATE", value: (i) => i.state },
  { header: "HEALTH", value: (i) => i.health.state },
  { header: "JOBS SYNC", value: (i) => i.last_sync.jobs?.state ?? null, drop: 1 },
  { header: "APPLICATIONS SYNC", value: (i) => i.last_sync.applications?.state ?? null, drop: 2 },
  { header: "PENDING WRITE-BACKS", value: (i) => i.pending_write_backs, drop: 3 },
  { header: "CREATED", value: (i) => i.created_at, drop: 4 },
];

/** Hirebridge's record of an integration, as `show` and `rename` print it. */
const summaryFields = (i: IntegrationSummary): [string, unknown][] => [
  ["display name", i.display_name],
  ["health", i.health.reason ? `${i.health.state}: ${i.health.reason}` : i.health.state],
  ["last jobs sync", i.last_sync.jobs ? `${i.last_sync.jobs.state} (${i.last_sync.jobs.created_at})` : null],
  [
    "last applications sync",
    i.last_sync.applications ? `${i.last_sync.applications.state} (${i.last_sync.applications.created_at})` : null,
  ],
  ["write-backs waiting", i.pending_write_backs],
];

const ON_OFF = /^(on|off|true|false)$/i;

/** Hirebridge's record of the organisation's integrations: the list, one, its name. */
function registerRecordCommands(integrations: Command, run: Run): void {
  const list = integrations
    .command("list")
    .description(
      "List your organisation's integrations: name, tool, state, health, last sync of jobs and applications, write-backs waiting.",
    )
    .action(
      run(async (ctx) => {
        const hb = await ctx.client();
        const items: IntegrationSummary[] = [];
        for await (const i of hb.integrations.iterate()) items.push(i);
        ctx.out.table(items, SUMMARY_COLUMNS);
      }),
    );
  examples(list, ["hirebridge integrations list", "hirebridge --json integrations list | jq '.[].id'"]);

  const show = integrations
    .command("show")
    .description("Show an integration: its name and health in Hirebridge, and its tool, state, set-up state and organisation upstream.")
    .argument("<integration-id>")
    .option("--fresh", "bypass the proxy's cache")
    .action(
      run(async (ctx, [id], opts) => {
        const hb = await ctx.client();
        // The details first: an integration the upstream knows for this organisation is recorded by it.
        const answer = await hb.integrations.get(id!, { bypassCache: opts["fresh"] === true });
        const summary = await hb.integrations.summary(id!);
        const d = answer.data;
        ctx.out.record({ ...answer, hirebridge: summary }, [
          ["id", d.id],
          ...summaryFields(summary),
          ["tool", `${d.tool.label} (${d.tool.id})`],
          ["category", d.category],
          ["status", d.status],
          ["setup status", d.setup_status],
          ["organisation", d.end_user.organization_name],
          ["origin id", d.end_user.origin_id],
          ["created at", d.created_at],
          ["read models", d.read_models.filter((m) => m.is_available).map((m) => m.id)],
          ["write actions", d.write_actions.filter((m) => m.is_available).map((m) => m.id)],
        ]);
      }),
    );
  examples(show, ["hirebridge integrations show greenhouse:8d1hpPsbjxUkoCoa1veLZGe5 --fresh"]);

  const rename = integrations
    .command("rename")
    .description("Give an integration the name people see (console, CLI, API); --clear goes back to the upstream's organisation name.")
    .argument("<integration-id>")
    .argument("[name]")
    .option("--clear", "use the end user's organisation name from the upstream again")
    .action(
      run(async (ctx, [id, name], opts) => {
        const clear = opts["clear"] === true;
        if (clear === (name !== undefined)) throw new CliError("Give a name, or --clear (not both)", EXIT.USAGE);
        const summary = await (await ctx.client()).integrations.update(id!, { display_name: clear ? null : name! });
        ctx.out.record(summary, [["id", summary.id], ...summaryFields(summary)]);
      }),
    );
  examples(rename, [
    'hirebridge integrations rename greenhouse:8d1h… "Acme (EU)"',
    "hirebridge integrations rename greenhouse:8d1h… --clear",
  ]);
}

/** Connecting an ATS: a link into the upstream's flow, the activation, a link to reconnect. */
function registerConnectCommands(integrations: Command, run: Run): void {
  const link = addSchemaOptions(
    integrations.command("connect-link").description("Create a link into the connection flow for a new integration of your organisation."),
    ConnectCreateLinkRequestSchema,
    { enforceRequired: true, exclude: ["end_user_origin_id"] },
  ).action(
    run(async (ctx, _args, opts) => {
      const body = bodyFromOptions(ConnectCreateLinkRequestSchema, opts, ["end_user_origin_id"]) as ConnectCreateLinkRequest;
      const answer = await (await ctx.client()).connect.createLink(body);
      ctx.out.result(answer, () => answer.data.link);
    }),
  );
  examples(link, [
    'hirebridge integrations connect-link --end-user-email it@acme.example --end-user-organization-name "Acme" --integration-category ATS',
    "hirebridge integrations connect-link --end-user-email it@acme.example --end-user-organization-name Acme --integration-tool greenhouse --link-type MAGIC_LINK",
  ]);

  const activate = integrations
    .command("activate")
    .description(
      "Finish the connection flow: exchange the activation token it ended with, and record the integration for your organisation. A token that starts with '-' goes after `--`, or it reads as an option.",
    )
    .argument("<activation-token>")
    .action(
      run(async (ctx, [token]) => {
        const answer = await (await ctx.client()).connect.activate({ activation_token: token! });
        ctx.out.record(answer, Object.entries(answer.data));
      }),
    );
  examples(activate, ["hirebridge integrations activate 0c5d…", "hirebridge integrations activate -- -QdIs…"]);

  const relink = addSchemaOptions(
    integrations
      .command("relink")
      .description("Create a link to reconnect an integration (for example to renew its credentials).")
      .argument("<integration-id>"),
    RelinkRequestSchema,
  ).action(
    run(async (ctx, [id], opts) => {
      const answer = await (await ctx.client()).integrations.relink(id!, bodyFromOptions(RelinkRequestSchema, opts));
      ctx.out.result(answer, () => answer.data.link);
    }),
  );
  examples(relink, ["hirebridge integrations relink greenhouse:8d1h… --link-type MAGIC_LINK --language de"]);
}

/** An integration's fields and custom-field mappings upstream, and its deletion. */
function registerFieldCommands(integrations: Command, run: Run): void {
  const fields = integrations
    .command("fields")
    .description("List every field of an integration, with its passthrough setting.")
    .argument("<integration-id>")
    .action(
      run(async (ctx, [id]) => {
        const hb = await ctx.client();
        const rows: IntegrationField[] = [];
        for await (const f of hb.integrations.fields.iterate(id!, { page_size: 2000 })) rows.push(f);
        ctx.out.table(rows, FIELD_COLUMNS);
      }),
    );
  examples(fields, ["hirebridge integrations fields greenhouse:8d1h…"]);

  const passthrough = integrations
    .command("passthrough")
    .description("Turn passthrough of an integration field on or off.")
    .argument("<integration-id>")
    .argument("<field-id>")
    .argument("<on|off>")
    .action(
      run(async (ctx, [id, fieldId, state]) => {
        if (!ON_OFF.test(state!)) throw new CliError(`Expected on or off, got ${JSON.stringify(state)}`, EXIT.USAGE);
        const enable = /^(on|true)$/i.test(state!);
        const answer = await (await ctx.client()).integrations.updateField(id!, fieldId!, { enable_passthrough: enable });
        ctx.out.table([answer.data], FIELD_COLUMNS, answer);
      }),
    );
  examples(passthrough, ["hirebridge integrations passthrough greenhouse:8d1h… 4Rk2… on"]);

  const customFields = integrations
    .command("custom-fields")
    .description("List an integration's custom fields and the integration field each is mapped to.")
    .argument("<integration-id>")
    .action(
      run(async (ctx, [id]) => {
        const hb = await ctx.client();
        const rows: CustomField[] = [];
        for await (const f of hb.integrations.customFields.iterate(id!, { page_size: 250 })) rows.push(f);
        ctx.out.table(rows, CUSTOM_FIELD_COLUMNS);
      }),
    );
  examples(customFields, ["hirebridge integrations custom-fields greenhouse:8d1h…"]);

  const map = integrations
    .command("map-field")
    .description("Map a custom field to an integration field (replacing any mapping it had).")
    .argument("<integration-id>")
    .argument("<custom-field-id>")
    .argument("<integration-field-id>")
    .action(
      run(async (ctx, [id, customFieldId, fieldId]) => {
        const answer = await (await ctx.client()).integrations.mapCustomField(id!, customFieldId!, { integration_field_id: fieldId! });
        ctx.out.table([answer.data], CUSTOM_FIELD_COLUMNS, answer);
      }),
    );
  examples(map, ["hirebridge integrations map-field greenhouse:8d1h… Cf12… 4Rk2…"]);

  const remove = integrations
    .command("delete")
    .description("Delete an integration. This cannot be undone; asks for confirmation unless --yes.")
    .argument("<integration-id>")
    .option("-y, --yes", "do not ask")
    .action(
      run(async (ctx, [id], opts) => {
        if (opts["yes"] !== true) {
          const ok = await confirm(ctx.terminal, `Delete integration ${id}? This cannot be undone.`);
          if (!ok) throw new CliError("Not deleted: not confirmed (pass --yes to skip the question)", EXIT.FAILURE);
        }
        const answer = await (await ctx.client()).integrations.delete(id!);
        ctx.out.result(answer, () => `Deleted integration ${id}.`);
      }),
    );
  examples(remove, ["hirebridge integrations delete greenhouse:8d1h…", "hirebridge integrations delete greenhouse:8d1h… --yes"]);
}

export const registerIntegrationCommands: RegisterCommands = (program, run) => {
  const integrations = program.command("integrations").description("ATS integrations: details, connecting, fields, mappings, deletion.");
  registerRecordCommands(integrations, run);
  registerConnectCommands(integrations, run);
  registerFieldCommands(integrations, run);
};
