import { randomBytes, randomUUID } from "node:crypto";
import type { FastifyPluginAsync } from "fastify";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import {
  ServiceAccountCreatedSchema,
  ServiceAccountCreateSchema,
  ServiceAccountListSchema,
  ServiceAccountParamsSchema,
  serviceAccountResponses,
  type ServiceAccount,
} from "../../../contracts/service-accounts/index.js";
import { OrgParamsSchema } from "../../../contracts/recruiting/org.js";
import { principalOf } from "../../../shared/auth/bearer.plugin.js";
import { callerOrg } from "../../../shared/auth/caller-org.js";
import { requirePerson } from "../../../shared/auth/token-scopes.js";
import type { Database } from "../../../shared/db/database.js";
import { conflict, notFound } from "../../../shared/errors.js";
import { hashPassword, OWASP_ARGON2ID, type HashParams } from "../password-hash.js";
import { serviceAccountsRepository, type ServiceAccountsRepository } from "../storage/service-accounts.repository.js";
import type { ServiceAccountRow } from "../storage/service-accounts.tables.js";

const common = { tags: ["service accounts"], security: [{ bearer: [] }] };
const PATH = "/org/:org_id/service-accounts";

type Ctx = { repo: ServiceAccountsRepository; realm: string; hashParams: HashParams; now: () => number };

/** A generated client id: `sa-` and 20 base32 characters (100 random bits), safe in a form, a URL and HTTP Basic. */
const newClientId = () => `sa-${randomBytes(15).toString("base64url").replace(/[-_]/g, "x").toLowerCase().slice(0, 20)}`;
/** A client secret: 32 random bytes, base64url (what Keycloak's generated secrets hold, and more). */
const newSecret = () => randomBytes(32).toString("base64url");

export function toServiceAccount(row: ServiceAccountRow): ServiceAccount {
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    scopes: row.scopes,
    created_at: row.createdAt.toISOString(),
    secret_rotated_at: row.secretRotatedAt?.toISOString() ?? null,
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

/** Why a rotate or revoke found nothing to change: no such account (404), or a revoked one (409). */
async function missingOrRevoked(ctx: Ctx, org: string, id: string): Promise<Error> {
  return (await ctx.repo.find(org, id))
    ? conflict("The service account is revoked; create a new one")
    : notFound("No such service account");
}

/** The app a Typebox plugin is given. */
type RouteApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** Create and list. */
function registerCollection(app: RouteApp, ctx: Ctx): void {
  app.post(
    PATH,
    {
      schema: {
        ...common,
        summary: "Create a service account",
        description:
          "A confidential client for a machine of the organization. Its `client_id` and `client_secret` obtain access tokens at the token endpoint with `grant_type=client_credentials`. The secret is in this answer only: store it now.",
        params: OrgParamsSchema,
        body: ServiceAccountCreateSchema,
        response: serviceAccountResponses(ServiceAccountCreatedSchema),
      },
    },
    async (request) => {
      const org = callerOrg(request);
      const secret = newSecret();
      const row = await ctx.repo.insert({
        id: randomUUID(),
        realm: ctx.realm,
        orgId: org,
        clientId: newClientId(),
        name: request.body.name,
        scopes: request.body.scopes ?? [],
        secretHash: await hashPassword(secret, ctx.hashParams),
        createdAt: new Date(ctx.now()),
        createdBy: principalOf(request).sub,
      });
      request.log.info({ serviceAccount: row.id, clientId: row.clientId }, "service account created");
      return { ...toServiceAccount(row), client_secret: secret };
    },
  );
  app.get(
    PATH,
    {
      schema: {
        ...common,
        summary: "List the service accounts",
        description: "Every service account of the organization with when it last obtained a token; secrets are never shown again.",
        params: OrgParamsSchema,
        response: serviceAccountResponses(ServiceAccountListSchema),
      },
    },
    async (request) => ({ items: (await ctx.repo.list(callerOrg(request))).map(toServiceAccount) }),
  );
}

/** Rotate the secret, revoke. */
function registerActions(app: RouteApp, ctx: Ctx): void {
  app.post(
    `${PATH}/:account_id/rotate-secret`,
    {
      schema: {
        ...common,
        summary: "Rotate a service account's secret",
        description:
          "A new secret, in this answer only; the old one stops working at once (tokens it obtained stay valid until they expire).",
        params: ServiceAccountParamsSchema,
        response: serviceAccountResponses(ServiceAccountCreatedSchema),
      },
    },
    async (request) => {
      const org = callerOrg(request);
      const secret = newSecret();
      const hash = await hashPassword(secret, ctx.hashParams);
      const row = await ctx.repo.rotateSecret(org, request.params.account_id, hash, new Date(ctx.now()));
      if (!row) throw await missingOrRevoked(ctx, org, request.params.account_id);
      request.log.info({ serviceAccount: row.id }, "service account secret rotated");
      return { ...toServiceAccount(row), client_secret: secret };
    },
  );
  app.post(
    `${PATH}/:account_id/revoke`,
    {
      schema: {
        ...common,
        summary: "Revoke a service account",
        description:
          "Its next token request fails (401 `unauthorized_client`); access tokens it already holds stay valid until they expire (at most the token lifetime, ACCESS_TOKEN_LIFESPAN). It stays listed, revoked.",
        params: ServiceAccountParamsSchema,
        response: serviceAccountResponses(ServiceAccountListSchema.properties.items.items),
      },
    },
    async (request) => {
      const org = callerOrg(request);
      const row = await ctx.repo.revoke(org, request.params.account_id, new Date(ctx.now()));
      if (!row) throw await missingOrRevoked(ctx, org, request.params.account_id);
      request.log.info({ serviceAccount: row.id }, "service account revoked");
      return toServiceAccount(row);
    },
  );
}

const routes =
  (ctx: Ctx): FastifyPluginAsyncTypebox =>
  async (app) => {
    // Only people manage service accounts: a machine's token cannot mint or revoke others.
    app.addHook("onRequest", async (request) => requirePerson(request));
    registerCollection(app, ctx);
    registerActions(app, ctx);
  };

/**
 * The service accounts' management, for the recruiting API (its HostedRoutes: behind the bearer
 * token and the tenant guard), on the token service's storage in the same database. Wired in
 * src/runtime/wiring.ts when the APIs trust the embedded token service. New secrets are hashed with
 * OWASP's argon2id minimum unless `hashParams` says otherwise (tests).
 */
export function serviceAccountRoutes(
  database: Database,
  opts: { realm: string; hashParams?: HashParams; now?: () => number },
): { routes: FastifyPluginAsync[]; orgRoutes: FastifyPluginAsync[] } {
  const ctx: Ctx = {
    repo: serviceAccountsRepository(database.requestDb),
    realm: opts.realm,
    hashParams: opts.hashParams ?? OWASP_ARGON2ID,
    now: opts.now ?? Date.now,
  };
  return { routes: [], orgRoutes: [routes(ctx) as FastifyPluginAsync] };
}
