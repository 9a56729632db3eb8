import { boolean, integer, jsonb, pgTable, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";

/** Drizzle mirrors of migrations/0101_token_service.sql (the SQL is the source of truth). */
const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export type UserAttributes = Record<string, string[]>;

export const tokenUsers = pgTable(
  "token_users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    realm: text("realm").notNull(),
    username: text("username").notNull(),
    email: text("email"),
    emailVerified: boolean("email_verified").notNull().default(false),
    firstName: text("first_name"),
    lastName: text("last_name"),
    enabled: boolean("enabled").notNull().default(true),
    attributes: jsonb("attributes").$type<UserAttributes>().notNull().default({}),
    passwordHash: text("password_hash"),
    passwordTemporary: boolean("password_temporary").notNull().default(false),
    createdAt: at("created_at").notNull(),
  },
  (t) => [unique("token_users_realm_username_key").on(t.realm, t.username)],
);
export type UserRow = typeof tokenUsers.$inferSelect;
/** What the tokens' claims are made of: a user without its password hash and bookkeeping. */
export type ClaimsUser = Pick<UserRow, "id" | "username" | "email" | "emailVerified" | "firstName" | "lastName" | "attributes">;

export const tokenLoginFailures = pgTable("token_login_failures", {
  userId: uuid("user_id").primaryKey(),
  failures: integer("failures").notNull().default(0),
  lastFailureAt: at("last_failure_at").notNull(),
  lockedUntil: at("locked_until"),
});

export const tokenSessions = pgTable("token_sessions", {
  id: uuid("id").primaryKey(),
  realm: text("realm").notNull(),
  userId: uuid("user_id").notNull(),
  clientId: text("client_id").notNull(),
  scope: text("scope").notNull(),
  startedAt: at("started_at").notNull(),
  lastRefreshAt: at("last_refresh_at").notNull(),
  refreshJti: uuid("refresh_jti").notNull(),
  previousJti: uuid("previous_jti"),
  refreshCount: integer("refresh_count").notNull().default(0),
  endedAt: at("ended_at"),
  endedReason: text("ended_reason").$type<SessionEndReason>(),
  /** migrations/0113_token_sso_sessions.sql: the browser SSO session whose code started it, if any. */
  ssoSessionId: uuid("sso_session_id"),
});
export type SessionRow = typeof tokenSessions.$inferSelect;
export type SessionEndReason = "logout" | "admin_logout" | "reuse" | "code_reuse" | "password_reset" | "disabled";

export const tokenSigningKeys = pgTable("token_signing_keys", {
  kid: text("kid").primaryKey(),
  alg: text("alg").notNull(),
  privateJwk: jsonb("private_jwk").$type<Record<string, unknown>>().notNull(),
  publicJwk: jsonb("public_jwk").$type<Record<string, unknown>>().notNull(),
  createdAt: at("created_at").notNull(),
  retiredAt: at("retired_at"),
  publishUntil: at("publish_until"),
});
export type SigningKeyRow = typeof tokenSigningKeys.$inferSelect;

/** migrations/0111_token_refresh_token_keys.sql: the HMAC keys of refresh tokens, never published. */
export const tokenRefreshTokenKeys = pgTable("token_refresh_token_keys", {
  kid: text("kid").primaryKey(),
  alg: text("alg").notNull(),
  secretJwk: jsonb("secret_jwk").$type<Record<string, unknown>>().notNull(),
  createdAt: at("created_at").notNull(),
  retiredAt: at("retired_at"),
  verifyUntil: at("verify_until"),
});
export type RefreshTokenKeyRow = typeof tokenRefreshTokenKeys.$inferSelect;

/** migrations/0110_authorization_codes.sql */
export const tokenAuthorizationCodes = pgTable("token_authorization_codes", {
  codeHash: text("code_hash").primaryKey(),
  realm: text("realm").notNull(),
  clientId: text("client_id").notNull(),
  userId: uuid("user_id").notNull(),
  redirectUri: text("redirect_uri").notNull(),
  codeChallenge: text("code_challenge").notNull(),
  scope: text("scope").notNull(),
  nonce: text("nonce"),
  authTime: at("auth_time").notNull(),
  expiresAt: at("expires_at").notNull(),
  usedAt: at("used_at"),
  sessionId: uuid("session_id"),
  ssoSessionId: uuid("sso_session_id"),
});
export type AuthorizationCodeRow = typeof tokenAuthorizationCodes.$inferSelect;

/** migrations/0113_token_sso_sessions.sql: browser SSO sessions, found by their cookie's hash. */
export const tokenSsoSessions = pgTable("token_sso_sessions", {
  id: uuid("id").primaryKey(),
  realm: text("realm").notNull(),
  userId: uuid("user_id").notNull(),
  cookieHash: text("cookie_hash").notNull(),
  startedAt: at("started_at").notNull(),
  lastUsedAt: at("last_used_at").notNull(),
  endedAt: at("ended_at"),
  endedReason: text("ended_reason").$type<SessionEndReason>(),
});
export type SsoSessionRow = typeof tokenSsoSessions.$inferSelect;
