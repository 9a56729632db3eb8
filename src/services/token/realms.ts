import { KeycloakError } from "./token-errors.js";
import { CONSOLE_CLIENT_ID } from "../../shared/config.js";

/**
 * The realms and clients the embedded provider knows. Keycloak keeps these in its database and
 * manages them through the admin console; Hirebridge needs a fixed set, so they come from config:
 * the application realm (AUTH_REALM) with its public client (AUTH_CLIENT_ID), and `master`, where
 * the `admin` user logs in through `admin-cli` to call the admin REST API.
 * Every Keycloak realm also has `admin-cli` (direct grants on) and `account` (direct grants off),
 * so tools written against Keycloak find the same clients here.
 */
export const MASTER_REALM = "master";
export const ADMIN_CLI = "admin-cli";
export const ADMIN_USERNAME = "admin";

export type Client = {
  clientId: string;
  /** Keycloak's "Direct access grants" switch: may use the password grant. */
  directAccessGrants: boolean;
  /**
   * Keycloak's "Standard flow" (authorization code), with its valid redirect URIs, matched exactly,
   * and PKCE required with S256 ("Proof Key for Code Exchange Code Challenge Method": S256).
   */
  standardFlow?: { redirectUris: readonly string[] };
  /**
   * Keycloak's audience mapper ("Included Client Audience"): added to the `aud` of the client's
   * access tokens, beside `account`. The application clients carry the APIs' audience
   * (AUTH_AUDIENCE), so the APIs accept their tokens; `admin-cli` and `account` carry none.
   */
  audience?: string;
};

/** The operator console's public client: authorization code + PKCE, no password grant. */

export type Realm = {
  name: string;
  /** `{authOrigin}/realms/{name}`: the `iss` of its tokens and the base of its endpoints. */
  issuer: string;
  clients: ReadonlyMap<string, Client>;
};

export type Realms = {
  get(name: string): Realm | undefined;
  app: Realm;
  master: Realm;
  all: Realm[];
};

function realm(authOrigin: string, name: string, extraClients: Client[]): Realm {
  const clients: Client[] = [
    { clientId: ADMIN_CLI, directAccessGrants: true },
    { clientId: "account", directAccessGrants: false },
    ...extraClients,
  ];
  return {
    name,
    issuer: `${authOrigin}/realms/${name}`,
    clients: new Map(clients.map((c) => [c.clientId, c])),
  };
}

export function buildRealms(
  authOrigin: string,
  appRealm: string,
  appClientId: string,
  consoleRedirectUri: string,
  apiAudience: string,
): Realms {
  const app = realm(authOrigin, appRealm, [
    { clientId: appClientId, directAccessGrants: true, audience: apiAudience },
    { clientId: CONSOLE_CLIENT_ID, directAccessGrants: false, standardFlow: { redirectUris: [consoleRedirectUri] }, audience: apiAudience },
  ]);
  const master = appRealm === MASTER_REALM ? app : realm(authOrigin, MASTER_REALM, []);
  const byName = new Map([app, master].map((r) => [r.name, r]));
  return { get: (name) => byName.get(name), app, master, all: [...byName.values()] };
}

/** The realm named in the path; Keycloak answers 404 "Realm does not exist" for any other. */
export function requireRealm(realms: Realms, name: string): Realm {
  const found = realms.get(name);
  if (!found) throw new KeycloakError(404, { error: "Realm does not exist" });
  return found;
}
