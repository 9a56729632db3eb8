import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { DateTime, ErrorDetailSchema, Nullable, Uuid, withDescription } from "../common.js";
import { errorResponses } from "../recruiting/fields.js";

/**
 * Service accounts (docs/token-service.md, Service accounts): an organisation's confidential clients
 * for machines, managed on the recruiting API under `/org/{org_id}/service-accounts` and used at the
 * token endpoint with `grant_type=client_credentials`.
 */

/**
 * What a service account's tokens are limited to. `read`: reads only (GET and HEAD) on every API;
 * `recruiting`: the recruiting API only (the integration proxy refuses it). None: every API, reads
 * and writes. The words travel in the token's `scope` claim, where the APIs enforce them.
 */
export const SERVICE_ACCOUNT_SCOPES = ["read", "recruiting"] as const;
export type ServiceAccountScope = (typeof SERVICE_ACCOUNT_SCOPES)[number];
const ScopeSchema = Type.Unsafe<ServiceAccountScope>({
  type: "string",
  enum: [...SERVICE_ACCOUNT_SCOPES],
  description: "`read`: GET and HEAD only, on every API; `recruiting`: the recruiting API only (not the integration proxy).",
});

const orgId = Uuid({ description: "Organization id; must equal the token's org_id." });
export const ServiceAccountParamsSchema = Type.Object({ org_id: orgId, account_id: Uuid({ description: "Service account id." }) });
export type ServiceAccountParams = Static<typeof ServiceAccountParamsSchema>;

export const ServiceAccountCreateSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: "What the machine is (free text), e.g. `interview runner`." }),
    scopes: Type.Optional(
      Type.Array(ScopeSchema, { uniqueItems: true, description: "Limits of its tokens; empty or absent: every API, reads and writes." }),
    ),
  },
  { additionalProperties: false, title: "ServiceAccountCreate" },
);
export type ServiceAccountCreate = Static<typeof ServiceAccountCreateSchema>;

export const ServiceAccountSchema = Type.Object(
  {
    id: Uuid({ description: "The account's id: the `sub` of its tokens." }),
    client_id: Type.String({ description: "What it sends as `client_id` to the token endpoint (generated)." }),
    name: Type.String(),
    scopes: Type.Array(ScopeSchema, { description: "Limits of its tokens; empty: none." }),
    created_at: DateTime(),
    secret_rotated_at: Nullable(DateTime(), { description: "When the secret was last replaced; null: never." }),
    last_used_at: Nullable(DateTime(), { description: "When it last obtained a token; null: never." }),
    revoked_at: Nullable(DateTime(), {
      description: "When it was revoked: its token requests fail since; tokens issued before stay valid until they expire.",
    }),
  },
  { additionalProperties: false, title: "ServiceAccount" },
);
export type ServiceAccount = Static<typeof ServiceAccountSchema>;

const SecretSchema = Type.String({
  description: "The client secret. Shown only in this answer (it is stored hashed): store it now.",
});

export const ServiceAccountCreatedSchema = Type.Object(
  { ...ServiceAccountSchema.properties, client_secret: SecretSchema },
  { additionalProperties: false, title: "ServiceAccountCreated" },
);
export type ServiceAccountCreated = Static<typeof ServiceAccountCreatedSchema>;

export const ServiceAccountListSchema = Type.Object(
  { items: Type.Array(ServiceAccountSchema, { description: "Oldest first, revoked ones included." }) },
  { title: "ServiceAccountList" },
);
export type ServiceAccountList = Static<typeof ServiceAccountListSchema>;

const errors = {
  401: errorResponses[401],
  403: withDescription(
    ErrorDetailSchema,
    "The token's org_id is not the path's, or the caller is a service account (only people manage service accounts)",
  ),
  404: withDescription(ErrorDetailSchema, "No such service account in this organization"),
  409: withDescription(ErrorDetailSchema, "The service account is revoked"),
  422: errorResponses[422],
};

/** A route's answers: `ok` with `status` (200 unless said), and the errors these routes answer. */
export const serviceAccountResponses = <S extends TSchema>(ok: S) => ({ 200: ok, ...errors });
