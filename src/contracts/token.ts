import { type Static, Type } from "@sinclair/typebox";

/**
 * The token service's wire contract, as Keycloak shapes it: the OpenID Connect endpoints under
 * `{auth_url}` = `{origin}/realms/{realm}` and the admin REST API subset under `/admin/realms`.
 * Field names are Keycloak's (snake_case for OAuth, camelCase for the admin representations).
 */

/** Form fields of `POST {auth_url}/protocol/openid-connect/token`. Unknown fields are ignored, as in Keycloak. */
export const TokenFormSchema = Type.Object(
  {
    grant_type: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
    username: Type.Optional(Type.String()),
    password: Type.Optional(Type.String()),
    refresh_token: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
    code: Type.Optional(Type.String()),
    redirect_uri: Type.Optional(Type.String()),
    code_verifier: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);
export type TokenForm = Static<typeof TokenFormSchema>;

export const PasswordGrantFormSchema = Type.Object({
  grant_type: Type.Literal("password"),
  client_id: Type.String(),
  username: Type.String(),
  password: Type.String(),
  scope: Type.Optional(Type.String()),
});
export type PasswordGrantForm = Static<typeof PasswordGrantFormSchema>;

export const RefreshGrantFormSchema = Type.Object({
  grant_type: Type.Literal("refresh_token"),
  client_id: Type.String(),
  refresh_token: Type.String(),
});
export type RefreshGrantForm = Static<typeof RefreshGrantFormSchema>;

export const TokenResponseSchema = Type.Object(
  {
    access_token: Type.String({ description: "JWT (RS256, or ES256 under AUTH_ACCESS_TOKEN_ALG) for API requests." }),
    expires_in: Type.Integer({ description: "Access token lifetime, seconds." }),
    refresh_expires_in: Type.Integer({ description: "Refresh token lifetime, seconds." }),
    refresh_token: Type.String({ description: "Single use: every refresh returns a new one." }),
    token_type: Type.Literal("Bearer"),
    id_token: Type.Optional(Type.String({ description: "Only when the `openid` scope was requested." })),
    "not-before-policy": Type.Integer(),
    session_state: Type.String({ description: "The session id (the tokens' `sid` claim)." }),
    scope: Type.String(),
  },
  { $id: "TokenResponse" },
);
export type TokenResponse = Static<typeof TokenResponseSchema>;

/**
 * The answer to `grant_type=client_credentials` (a service account), as Keycloak's by default: an
 * access token only, no refresh token (`refresh_expires_in` 0) and no session; the client asks again.
 */
export const ClientCredentialsTokenResponseSchema = Type.Object(
  {
    access_token: TokenResponseSchema.properties.access_token,
    expires_in: TokenResponseSchema.properties.expires_in,
    refresh_expires_in: Type.Literal(0, { description: "No refresh token: ask for a new token with the client credentials." }),
    token_type: Type.Literal("Bearer"),
    "not-before-policy": Type.Integer(),
    scope: Type.String({ description: "The service account's limits (`read`, `recruiting`); empty: none." }),
  },
  { $id: "ClientCredentialsTokenResponse" },
);
export type ClientCredentialsTokenResponse = Static<typeof ClientCredentialsTokenResponseSchema>;

/** What the token endpoint answers: a user's token set, or a service account's access token (no refresh or session fields). */
export const TokenEndpointResponseSchema = Type.Object({
  ...TokenResponseSchema.properties,
  refresh_token: Type.Optional(TokenResponseSchema.properties.refresh_token),
  session_state: Type.Optional(TokenResponseSchema.properties.session_state),
});

/** RFC 6749 error body; Keycloak always sends a description. */
export const OAuthErrorSchema = Type.Object(
  { error: Type.String(), error_description: Type.Optional(Type.String()) },
  { $id: "OAuthError" },
);
export type OAuthErrorBody = Static<typeof OAuthErrorSchema>;

export const LogoutFormSchema = Type.Object(
  {
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String()),
    refresh_token: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);
export type LogoutForm = Static<typeof LogoutFormSchema>;

export const UserInfoSchema = Type.Object({
  sub: Type.String(),
  preferred_username: Type.String(),
  email_verified: Type.Boolean(),
  email: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  given_name: Type.Optional(Type.String()),
  family_name: Type.Optional(Type.String()),
  org_id: Type.Optional(Type.String()),
});
export type UserInfo = Static<typeof UserInfoSchema>;

/** A published key: RSA (`n`, `e`) for RS256, or EC P-256 (`crv`, `x`, `y`) for ES256 (AUTH_ACCESS_TOKEN_ALG). */
export const JwkSchema = Type.Object(
  {
    kty: Type.String(),
    kid: Type.String(),
    alg: Type.String(),
    use: Type.String(),
    n: Type.Optional(Type.String()),
    e: Type.Optional(Type.String()),
    crv: Type.Optional(Type.String()),
    x: Type.Optional(Type.String()),
    y: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);
export const JwksSchema = Type.Object({ keys: Type.Array(JwkSchema) });
export type Jwks = Static<typeof JwksSchema>;

export const DiscoverySchema = Type.Object(
  {
    issuer: Type.String(),
    token_endpoint: Type.String(),
    jwks_uri: Type.String(),
    userinfo_endpoint: Type.String(),
    end_session_endpoint: Type.String(),
    grant_types_supported: Type.Array(Type.String()),
    id_token_signing_alg_values_supported: Type.Array(Type.String()),
  },
  { additionalProperties: true },
);
export type Discovery = Static<typeof DiscoverySchema>;

// ---- Admin REST API (the subset tools use) ----

export const CredentialRepresentationSchema = Type.Object(
  { type: Type.Optional(Type.String()), value: Type.String(), temporary: Type.Optional(Type.Boolean()) },
  { additionalProperties: true },
);
export type CredentialRepresentation = Static<typeof CredentialRepresentationSchema>;

/** Keycloak attributes are arrays of strings; a bare string is accepted on input and stored as [value]. */
export const UserAttributesInputSchema = Type.Record(Type.String(), Type.Union([Type.Array(Type.String()), Type.String()]));

export const UserRepresentationInputSchema = Type.Object(
  {
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    email: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    firstName: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    lastName: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    enabled: Type.Optional(Type.Boolean()),
    emailVerified: Type.Optional(Type.Boolean()),
    attributes: Type.Optional(UserAttributesInputSchema),
    credentials: Type.Optional(Type.Array(CredentialRepresentationSchema)),
  },
  // Keycloak's representation has many more fields (groups, requiredActions …); tools send them, we ignore them.
  { additionalProperties: true },
);
export type UserRepresentationInput = Static<typeof UserRepresentationInputSchema>;

export const UserRepresentationSchema = Type.Object({
  id: Type.String({ format: "uuid" }),
  username: Type.String(),
  firstName: Type.Optional(Type.String()),
  lastName: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  emailVerified: Type.Boolean(),
  enabled: Type.Boolean(),
  createdTimestamp: Type.Integer(),
  attributes: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
  requiredActions: Type.Array(Type.String()),
});
export type UserRepresentation = Static<typeof UserRepresentationSchema>;

export const UserSearchQuerySchema = Type.Object({
  username: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  firstName: Type.Optional(Type.String()),
  lastName: Type.Optional(Type.String()),
  search: Type.Optional(Type.String()),
  exact: Type.Optional(Type.Boolean()),
  briefRepresentation: Type.Optional(Type.Boolean()),
  first: Type.Optional(Type.Integer({ minimum: 0 })),
  max: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type UserSearchQuery = Static<typeof UserSearchQuerySchema>;

/** Admin API errors, as Keycloak words them: `{error}` for auth/404, `{errorMessage}` for conflicts and bad input. */
export const AdminErrorSchema = Type.Object({ error: Type.Optional(Type.String()), errorMessage: Type.Optional(Type.String()) });
export type AdminError = Static<typeof AdminErrorSchema>;

export const KeyRotationResultSchema = Type.Object({
  kid: Type.String({ description: "The key that signs from now on." }),
  retired: Type.Array(Type.String(), { description: "Keys still published until their tokens have expired." }),
  refresh_token_key: Type.Object(
    {
      kid: Type.String({ description: "The HMAC key that signs refresh tokens from now on." }),
      retired: Type.Array(Type.String(), { description: "HMAC keys still accepted until their refresh tokens have expired." }),
    },
    { description: "Refresh tokens are HS512 under a key that is never published; it rotates with the signing key." },
  ),
});
export type KeyRotationResult = Static<typeof KeyRotationResultSchema>;
