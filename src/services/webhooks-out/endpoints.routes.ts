import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { errorResponses } from "../../contracts/recruiting/fields.js";
import { OrgParamsSchema } from "../../contracts/recruiting/org.js";
import {
  EndpointParamsSchema,
  endpointResponses,
  SecretRotationSchema,
  WebhookEndpointCreatedSchema,
  WebhookEndpointCreateSchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookEndpointUpdateSchema,
} from "../../contracts/webhooks-out/endpoints.js";
import type { FastifyRequest } from "fastify";
import { auditActorOf } from "../../shared/auth/audit-actor.js";
import { callerOrg } from "../../shared/auth/caller-org.js";
import type { Queryable } from "../../shared/db/database.js";
import { conflict, notFound, validationError } from "../../shared/errors.js";
import type { WebhooksOutContext } from "./context.js";
import {
  countEndpoints,
  deleteEndpoint,
  findEndpoint,
  insertEndpoint,
  keepAlive,
  listEndpoints,
  rotateSecret,
  toEndpoint,
  updateEndpoint,
} from "./endpoints.repository.js";
import { newSecret } from "./signing.js";
import { refusedUrl } from "./targets.js";

const common = { tags: ["webhook endpoints"], security: [{ bearer: [] }] };
const PATH = "/org/:org_id/webhook-endpoints";

/** A 422 naming the URL's problem, when the policy refuses it. */
async function checkUrl(ctx: WebhooksOutContext, url: string): Promise<void> {
  const why = await refusedUrl(url, ctx.policy, ctx.resolve);
  if (why) throw validationError([{ loc: ["body", "url"], msg: why, type: "value_error.url" }]);
}

/** Records an endpoint's change in the audit log, in `tx` (the change's transaction): ids only, never its URL or secret. */
const auditEndpoint = (ctx: WebhooksOutContext, tx: Queryable, request: FastifyRequest, org: string, action: string, id: string) =>
  ctx.audit.record(tx, { orgId: org, actor: auditActorOf(request), action, resourceType: "webhook_endpoint", resourceIds: [id] });

/** The app a Typebox plugin is given. */
type RouteApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** The endpoints: create, list, read. */
function registerEndpointCollection(app: RouteApp, ctx: WebhooksOutContext): void {
  app.post(
    PATH,
    {
      schema: {
        ...common,
        summary: "Create a webhook endpoint",
        description:
          "The endpoint receives the organization's events (all of them, or the `event_types` listed), signed per Standard Webhooks with the `secret` of this answer: the only time it is shown. With `temporary: true` it is deleted by itself after WEBHOOK_TEMP_ENDPOINT_IDLE_MINUTES without a keep-alive (`expires_at`).",
        params: OrgParamsSchema,
        body: WebhookEndpointCreateSchema,
        response: endpointResponses(WebhookEndpointCreatedSchema),
      },
    },
    async (request) => {
      const org = callerOrg(request);
      const body = request.body;
      await checkUrl(ctx, body.url);
      if ((await countEndpoints(ctx.db, org)) >= ctx.maxEndpoints) {
        throw validationError([
          { loc: ["body"], msg: `An organization has at most ${ctx.maxEndpoints} webhook endpoints`, type: "value_error" },
        ]);
      }
      const secret = newSecret();
      const values = {
        url: body.url,
        description: body.description ?? "",
        eventTypes: body.event_types ?? [],
        disabled: body.disabled ?? false,
        secret,
        ...(body.temporary ? { idleSeconds: ctx.tempIdleSeconds } : {}),
      };
      const row = await ctx.db.transaction(async (tx) => {
        const created = await insertEndpoint(tx, org, values);
        await auditEndpoint(ctx, tx, request, org, "webhook_endpoint.created", created.id);
        return created;
      });
      ctx.endpointsChanged(org);
      if (row.expiresAt) ctx.expiresAt(row.expiresAt);
      return { ...toEndpoint(row), secret };
    },
  );
  app.get(
    PATH,
    {
      schema: {
        ...common,
        summary: "List the webhook endpoints",
        description: "Every endpoint of the organization, oldest first (secrets are never shown again).",
        params: OrgParamsSchema,
        response: endpointResponses(WebhookEndpointListSchema),
      },
    },
    async (request) => ({ items: (await listEndpoints(ctx.db, callerOrg(request))).map((r) => toEndpoint(r)) }),
  );
  app.get(
    `${PATH}/:endpoint_id`,
    {
      schema: {
        ...common,
        summary: "Get a webhook endpoint",
        params: EndpointParamsSchema,
        response: endpointResponses(WebhookEndpointSchema),
      },
    },
    async (request) => {
      const row = await findEndpoint(ctx.db, callerOrg(request), request.params.endpoint_id);
      if (!row) throw notFound("Webhook endpoint not found");
      return toEndpoint(row);
    },
  );
}

/** One endpoint: update, delete. */
function registerEndpointChanges(app: RouteApp, ctx: WebhooksOutContext): void {
  app.patch(
    `${PATH}/:endpoint_id`,
    {
      schema: {
        ...common,
        summary: "Update a webhook endpoint (partial)",
        description: "Only the fields sent change. `disabled: false` enables it again; its waiting retries resume.",
        params: EndpointParamsSchema,
        body: WebhookEndpointUpdateSchema,
        response: endpointResponses(WebhookEndpointSchema),
      },
    },
    async (request) => {
      const org = callerOrg(request);
      const { url, description, event_types, disabled } = request.body;
      if (url !== undefined) await checkUrl(ctx, url);
      const patch = {
        ...(url === undefined ? {} : { url }),
        ...(description === undefined ? {} : { description }),
        ...(event_types === undefined ? {} : { eventTypes: event_types }),
        ...(disabled === undefined ? {} : { disabled }),
      };
      const row = await ctx.db.transaction(async (tx) => {
        const updated = await updateEndpoint(tx, org, request.params.endpoint_id, patch);
        if (updated) await auditEndpoint(ctx, tx, request, org, "webhook_endpoint.updated", updated.id);
        return updated;
      });
      if (!row) throw notFound("Webhook endpoint not found");
      ctx.endpointsChanged(org);
      if (disabled === false) ctx.wake();
      return toEndpoint(row);
    },
  );
  app.delete(
    `${PATH}/:endpoint_id`,
    {
      schema: {
        ...common,
        summary: "Delete a webhook endpoint",
        description: "It receives nothing more; deliveries waiting for a retry are dropped.",
        params: EndpointParamsSchema,
        response: endpointResponses(Type.Null({ description: "Deleted" }), 204),
      },
    },
    async (request, reply) => {
      const org = callerOrg(request);
      const deleted = await ctx.db.transaction(async (tx) => {
        const gone = await deleteEndpoint(tx, org, request.params.endpoint_id);
        if (gone) await auditEndpoint(ctx, tx, request, org, "webhook_endpoint.deleted", request.params.endpoint_id);
        return gone;
      });
      if (!deleted) throw notFound("Webhook endpoint not found");
      ctx.endpointsChanged(org);
      return reply.code(204).send(null);
    },
  );
}

/** One endpoint's secret: rotate it. */
function registerSecretRotation(app: RouteApp, ctx: WebhooksOutContext): void {
  app.post(
    `${PATH}/:endpoint_id/rotate-secret`,
    {
      schema: {
        ...common,
        summary: "Rotate a webhook endpoint's secret",
        description:
          "A new secret signs every delivery from now on; the old one keeps signing them too (a second signature in `webhook-signature`) until `previous_secret_expires_at`, so a receiver can switch without missing any.",
        params: EndpointParamsSchema,
        response: endpointResponses(SecretRotationSchema),
      },
    },
    async (request) => {
      const secret = newSecret();
      const org = callerOrg(request);
      const row = await ctx.db.transaction(async (tx) => {
        const rotated = await rotateSecret(tx, org, request.params.endpoint_id, secret, ctx.secretOverlapSeconds);
        if (rotated) await auditEndpoint(ctx, tx, request, org, "webhook_endpoint.secret_rotated", rotated.id);
        return rotated;
      });
      if (!row) throw notFound("Webhook endpoint not found");
      return { secret, previous_secret_expires_at: row.previousSecretExpiresAt!.toISOString() };
    },
  );
}

/** A temporary endpoint's keep-alive. */
function registerKeepAlive(app: RouteApp, ctx: WebhooksOutContext): void {
  app.post(
    `${PATH}/:endpoint_id/keep-alive`,
    {
      schema: {
        ...common,
        summary: "Keep a temporary webhook endpoint alive",
        description:
          "Moves a temporary endpoint's `expires_at` to WEBHOOK_TEMP_ENDPOINT_IDLE_MINUTES from now (`hirebridge webhooks listen` calls it while it runs); once no keep-alive came for that long, the sweep job deletes the endpoint. An endpoint that is not temporary answers 409.",
        params: EndpointParamsSchema,
        response: { ...endpointResponses(WebhookEndpointSchema), 409: errorResponses[409] },
      },
    },
    async (request) => {
      const row = await keepAlive(ctx.db, callerOrg(request), request.params.endpoint_id, ctx.tempIdleSeconds);
      if (row === null) throw notFound("Webhook endpoint not found");
      if (row === "permanent") throw conflict("The endpoint is not temporary: it stays until deleted");
      if (row.expiresAt) ctx.expiresAt(row.expiresAt);
      return toEndpoint(row);
    },
  );
}

/** The organisation's webhook endpoints (served on the recruiting API, behind its tenant guard). */
export const endpointRoutes: FastifyPluginAsyncTypebox<{ ctx: WebhooksOutContext }> = async (app, { ctx }) => {
  registerEndpointCollection(app, ctx);
  registerEndpointChanges(app, ctx);
  registerSecretRotation(app, ctx);
  registerKeepAlive(app, ctx);
};
