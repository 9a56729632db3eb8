import type { Logger } from "pino";
import type { TokenConfig } from "./config.js";
import type { Database } from "../../shared/db/database.js";
import { dummyHash, hashParams as hashParamsOf, OWASP_ARGON2ID, type HashParams } from "./password-hash.js";
import { buildRealms, type Realms } from "./realms.js";
import { createRefreshTokenKeys, type RefreshTokenKeys } from "./refresh-token-keys.js";
import { createKeyStore, type KeyStore } from "./signing-keys.js";
import { authorizationCodesRepository, type AuthorizationCodesRepository } from "./storage/authorization-codes.repository.js";
import { loginFailuresRepository, type LoginFailuresRepository } from "./storage/login-failures.repository.js";
import { keysRepository } from "./storage/keys.repository.js";
import { serviceAccountsRepository, type ServiceAccountsRepository } from "./storage/service-accounts.repository.js";
import { sessionsRepository, type SessionsRepository } from "./storage/sessions.repository.js";
import { ssoSessionsRepository, type SsoSessionsRepository } from "./storage/sso-sessions.repository.js";
import { usersRepository, type UsersRepository } from "./storage/users.repository.js";

/** Everything a grant, route or admin operation needs; built once per app. */
export type TokenContext = {
  config: TokenConfig;
  logger: Logger;
  realms: Realms;
  /** RSA keys: access, ID and login-request tokens (published in the JWKS). */
  keys: KeyStore;
  /** HMAC keys: refresh tokens (never published). */
  refreshKeys: RefreshTokenKeys;
  users: UsersRepository;
  sessions: SessionsRepository;
  /** Browser SSO sessions (the login page's cookie). */
  sso: SsoSessionsRepository;
  failures: LoginFailuresRepository;
  codes: AuthorizationCodesRepository;
  /** Organisations' confidential clients for machines (the client credentials grant). */
  serviceAccounts: ServiceAccountsRepository;
  /** The service's clock in ms; tests move it to expire tokens and sessions. */
  now: () => number;
  /** argon2id cost of new password hashes (and of upgrades on login). */
  hashParams: HashParams;
  /** A hash to verify against when there is no real one, so unknown users cost the same time. */
  dummyHash: () => Promise<string>;
};

export type TokenContextDeps = {
  config: TokenConfig;
  logger: Logger;
  database: Database;
  /** `{origin}` the realms live under, e.g. http://127.0.0.1:8080 */
  authOrigin: string;
  /** Where the operator console's sign-in comes back (`{console}/auth/callback`). */
  consoleRedirectUri: string;
  now?: () => number;
};

/** Seconds the longest-lived token we sign stays valid: how long a retired key must stay published. */
export function longestTokenLifetime(config: TokenConfig): number {
  return Math.max(config.ACCESS_TOKEN_LIFESPAN, refreshTokenLifetime(config)) + config.AUTH_CLOCK_SKEW_SECONDS;
}

/**
 * Seconds a refresh token stays valid. RS256 refresh tokens of the previous release live at most
 * this long too, which is why the retired RSA keys' window above already covers them.
 */
export const refreshTokenLifetime = (config: TokenConfig): number => Math.min(config.REFRESH_TOKEN_LIFESPAN, config.SESSION_MAX_LIFESPAN);

export function createTokenContext(deps: TokenContextDeps): TokenContext {
  const { config } = deps;
  // Every statement of the token service answers a caller: the request path's pool and bound.
  const database = { ...deps.database, db: deps.database.requestDb };
  const now = deps.now ?? Date.now;
  const hashParams = hashParamsOf(config);
  if (hashParams.memoryKiB < OWASP_ARGON2ID.memoryKiB || hashParams.passes < OWASP_ARGON2ID.passes) {
    deps.logger.warn(
      { hashParams, minimum: OWASP_ARGON2ID },
      "password hashing is cheaper than OWASP's minimum for argon2id: for tests only",
    );
  }
  let dummy: Promise<string> | undefined;
  return {
    config,
    logger: deps.logger,
    realms: buildRealms(deps.authOrigin, config.AUTH_REALM, config.AUTH_CLIENT_ID, deps.consoleRedirectUri, config.AUTH_AUDIENCE),
    keys: createKeyStore({
      repo: keysRepository(database.db, "signing"),
      alg: config.AUTH_ACCESS_TOKEN_ALG,
      now,
      publishRetiredFor: () => longestTokenLifetime(config),
    }),
    refreshKeys: createRefreshTokenKeys({
      repo: keysRepository(database.db, "refresh"),
      now,
      verifyRetiredFor: () => refreshTokenLifetime(config) + config.AUTH_CLOCK_SKEW_SECONDS,
    }),
    users: usersRepository(database.db),
    sessions: sessionsRepository(database.db, database.kind),
    sso: ssoSessionsRepository(database.db),
    failures: loginFailuresRepository(database.db),
    codes: authorizationCodesRepository(database.db),
    serviceAccounts: serviceAccountsRepository(database.db),
    now,
    hashParams,
    dummyHash: () => (dummy ??= dummyHash(hashParams)),
  };
}
