/**
 * The Keycloak realm export (deploy/keycloak/hirebridge-realm.json) is what makes a real Keycloak
 * issue the tokens the services expect. Keycloak cannot run here, so this test holds the export to
 * every setting the services and clients rely on, and to the embedded token service's defaults (the
 * ConfigSchema), so the two identity providers cannot drift apart unnoticed.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { ConfigSchema } from "../../../src/runtime/config.js";

type Json = Record<string, unknown>;
const read = (path: string) => JSON.parse(readFileSync(new URL(`../../../deploy/keycloak/${path}`, import.meta.url), "utf8")) as Json;
const realm = read("hirebridge-realm.json");
const defaults = (key: keyof typeof ConfigSchema.properties) => ConfigSchema.properties[key].default as unknown;

const clients = realm["clients"] as Json[];
const client = clients.find((c) => c["clientId"] === defaults("AUTH_CLIENT_ID"));
const profileComponents = (realm["components"] as Record<string, Json[]>)["org.keycloak.userprofile.UserProfileProvider"] ?? [];
const profile = JSON.parse(
  ((profileComponents[0]?.["config"] as Record<string, string[]> | undefined)?.["kc.user.profile.config"] ?? [])[0] ?? "null",
) as {
  attributes: Json[];
  unmanagedAttributePolicy?: string;
};

/**
 * Properties of Keycloak's representations (org.keycloak.representations.idm.RealmRepresentation,
 * ClientRepresentation, ProtocolMapperRepresentation, ComponentExportRepresentation,
 * UserRepresentation) that the export may use. Keycloak ignores unknown properties silently, so a
 * misspelt setting would simply not apply; this list turns such a typo into a failing test.
 */
const KNOWN = {
  realm: [
    "id",
    "realm",
    "displayName",
    "displayNameHtml",
    "notBefore",
    "defaultSignatureAlgorithm",
    "revokeRefreshToken",
    "refreshTokenMaxReuse",
    "accessTokenLifespan",
    "accessTokenLifespanForImplicitFlow",
    "ssoSessionIdleTimeout",
    "ssoSessionMaxLifespan",
    "ssoSessionIdleTimeoutRememberMe",
    "ssoSessionMaxLifespanRememberMe",
    "offlineSessionIdleTimeout",
    "offlineSessionMaxLifespanEnabled",
    "offlineSessionMaxLifespan",
    "clientSessionIdleTimeout",
    "clientSessionMaxLifespan",
    "clientOfflineSessionIdleTimeout",
    "clientOfflineSessionMaxLifespan",
    "accessCodeLifespan",
    "accessCodeLifespanUserAction",
    "accessCodeLifespanLogin",
    "enabled",
    "sslRequired",
    "registrationAllowed",
    "registrationEmailAsUsername",
    "rememberMe",
    "verifyEmail",
    "loginWithEmailAllowed",
    "duplicateEmailsAllowed",
    "resetPasswordAllowed",
    "editUsernameAllowed",
    "bruteForceProtected",
    "permanentLockout",
    "maxTemporaryLockouts",
    "bruteForceStrategy",
    "maxFailureWaitSeconds",
    "minimumQuickLoginWaitSeconds",
    "waitIncrementSeconds",
    "quickLoginCheckMilliSeconds",
    "maxDeltaTimeSeconds",
    "failureFactor",
    "roles",
    "groups",
    "defaultRole",
    "passwordPolicy",
    "users",
    "clients",
    "clientScopes",
    "defaultDefaultClientScopes",
    "defaultOptionalClientScopes",
    "protocolMappers",
    "components",
    "attributes",
    "organizationsEnabled",
    "eventsEnabled",
  ],
  client: [
    "id",
    "clientId",
    "name",
    "description",
    "rootUrl",
    "adminUrl",
    "baseUrl",
    "enabled",
    "clientAuthenticatorType",
    "secret",
    "redirectUris",
    "webOrigins",
    "notBefore",
    "bearerOnly",
    "consentRequired",
    "standardFlowEnabled",
    "implicitFlowEnabled",
    "directAccessGrantsEnabled",
    "serviceAccountsEnabled",
    "publicClient",
    "frontchannelLogout",
    "protocol",
    "attributes",
    "fullScopeAllowed",
    "protocolMappers",
    "defaultClientScopes",
    "optionalClientScopes",
  ],
  mapper: ["id", "name", "protocol", "protocolMapper", "consentRequired", "config"],
  component: ["id", "name", "providerId", "subType", "subComponents", "config"],
  user: [
    "id",
    "username",
    "enabled",
    "email",
    "emailVerified",
    "firstName",
    "lastName",
    "attributes",
    "credentials",
    "requiredActions",
    "groups",
    "realmRoles",
  ],
};
const unknownKeys = (o: Json, known: string[]) => Object.keys(o).filter((k) => !known.includes(k));

describe("Keycloak realm export", () => {
  test("uses only properties Keycloak's representations have (a typo would be ignored silently)", () => {
    assert.deepEqual(unknownKeys(realm, KNOWN.realm), []);
    for (const c of clients) assert.deepEqual(unknownKeys(c, KNOWN.client), [], String(c["clientId"]));
    for (const m of (client?.["protocolMappers"] ?? []) as Json[]) assert.deepEqual(unknownKeys(m, KNOWN.mapper), [], String(m["name"]));
    for (const c of profileComponents) assert.deepEqual(unknownKeys(c, KNOWN.component), []);
    for (const u of read("hirebridge-users-0.json")["users"] as Json[])
      assert.deepEqual(unknownKeys(u, KNOWN.user), [], String(u["username"]));
    assert.ok(["MULTIPLE", "LINEAR"].includes(realm["bruteForceStrategy"] as string));
  });

  test("is the realm the services trust by default", () => {
    assert.equal(realm["realm"], defaults("AUTH_REALM"));
    assert.equal(realm["enabled"], true);
    assert.equal(realm["defaultSignatureAlgorithm"], "RS256", "the verifier accepts RS256 and ES256 only");
    // No key material is shipped: Keycloak generates its own keys at import (see docs/operations.md).
    assert.equal((realm["components"] as Json)["org.keycloak.keys.KeyProvider"], undefined);
    assert.equal(realm["users"], undefined, "users are not part of the realm export (dev users live in hirebridge-users-0.json)");
  });

  test("token lifetimes equal the embedded token service's defaults", () => {
    assert.equal(realm["accessTokenLifespan"], 1800);
    assert.equal(realm["accessTokenLifespan"], defaults("ACCESS_TOKEN_LIFESPAN"));
    // Keycloak's refresh-token lifetime is the SSO idle timeout (each refresh slides it).
    assert.equal(realm["ssoSessionIdleTimeout"], 1800);
    assert.equal(realm["ssoSessionIdleTimeout"], defaults("REFRESH_TOKEN_LIFESPAN"));
    assert.equal(realm["ssoSessionMaxLifespan"], defaults("SESSION_MAX_LIFESPAN"));
    // 0 = the client sessions follow the SSO values above instead of overriding them.
    assert.equal(realm["clientSessionIdleTimeout"], 0);
    assert.equal(realm["clientSessionMaxLifespan"], 0);
  });

  test("refresh tokens rotate and a reused one is refused", () => {
    assert.equal(realm["revokeRefreshToken"], true);
    assert.equal(realm["refreshTokenMaxReuse"], 0);
  });

  test("brute-force detection is on with the embedded service's threshold and first lockout", () => {
    assert.equal(realm["bruteForceProtected"], true);
    assert.equal(realm["permanentLockout"], false);
    assert.equal(realm["failureFactor"], defaults("BRUTE_FORCE_MAX_FAILURES"));
    assert.equal(realm["waitIncrementSeconds"], defaults("BRUTE_FORCE_LOCKOUT_SECONDS"));
    assert.ok(
      typeof realm["maxFailureWaitSeconds"] === "number" && realm["maxFailureWaitSeconds"] >= (realm["waitIncrementSeconds"] as number),
    );
    // Failures more than 12 h apart do not add up, as in the embedded service.
    assert.equal(realm["maxDeltaTimeSeconds"], 12 * 3600);
  });

  test("has exactly one public client, with direct access grants and no browser flows", () => {
    assert.ok(client, `client ${String(defaults("AUTH_CLIENT_ID"))} exists`);
    assert.equal(clients.filter((c) => c["clientId"] === client["clientId"]).length, 1);
    assert.equal(client["clientId"], "hirebridge");
    assert.equal(client["enabled"], true);
    assert.equal(client["protocol"], "openid-connect");
    assert.equal(client["publicClient"], true);
    assert.equal(client["directAccessGrantsEnabled"], true);
    assert.equal(client["standardFlowEnabled"], false);
    assert.equal(client["implicitFlowEnabled"], false);
    assert.equal(client["serviceAccountsEnabled"], false);
    assert.equal(client["consentRequired"], false, "a client that requires consent is refused direct grants");
    assert.equal(client["secret"], undefined);
  });

  test("puts the user's org_id attribute into access tokens as a single string claim", () => {
    const mappers = (client?.["protocolMappers"] ?? []) as Json[];
    const orgMappers = mappers.filter((m) => (m["config"] as Json | undefined)?.["claim.name"] === "org_id");
    assert.equal(orgMappers.length, 1);
    const mapper = orgMappers[0]!;
    assert.equal(mapper["protocol"], "openid-connect");
    assert.equal(mapper["protocolMapper"], "oidc-usermodel-attribute-mapper");
    const config = mapper["config"] as Record<string, string>;
    assert.equal(config["user.attribute"], "org_id");
    assert.equal(config["claim.name"], "org_id");
    assert.equal(config["jsonType.label"], "String");
    assert.equal(config["multivalued"], "false", "a multivalued mapper would emit an array");
    assert.equal(config["access.token.claim"], "true");
    // Mapper config values are strings in Keycloak's representation, never booleans.
    for (const [key, value] of Object.entries(config)) assert.equal(typeof value, "string", key);
  });

  test("declares org_id in the user profile (Keycloak 24+ drops undeclared attributes), editable by admins only", () => {
    assert.equal(profileComponents.length, 1);
    assert.equal(profileComponents[0]!["providerId"], "declarative-user-profile");
    assert.ok(profile, "kc.user.profile.config holds the profile as a JSON string");
    const names = profile.attributes.map((a) => a["name"]);
    // Keycloak's built-in attributes stay declared, or the admin API could not set them.
    for (const builtIn of ["username", "email", "firstName", "lastName"]) assert.ok(names.includes(builtIn), builtIn);
    const org = profile.attributes.find((a) => a["name"] === "org_id");
    assert.ok(org);
    assert.equal(org["multivalued"], false);
    assert.deepEqual(org["permissions"], { view: ["admin"], edit: ["admin"] });
    // The APIs' /org/{org_id} paths take a UUID: refuse anything else when it is stored.
    const pattern = new RegExp(((org["validations"] as Json)["pattern"] as Json)["pattern"] as string);
    assert.ok(pattern.test(String(defaults("DEMO_ORG_ID"))));
    assert.ok(!pattern.test("acme"));
    // Unmanaged attributes stay off: only what is declared can be stored.
    assert.equal(profile.unmanagedAttributePolicy, undefined);
  });

  test("no attribute is required of users, so users created by `hirebridge admin users create` can log in", () => {
    // A required attribute a user lacks makes Keycloak answer direct grants "Account is not fully set up".
    for (const attribute of profile.attributes) assert.equal(attribute["required"], undefined, String(attribute["name"]));
  });

  test("the development users file puts the demo user in the demo organisation", () => {
    const dev = read("hirebridge-users-0.json");
    assert.equal(dev["realm"], realm["realm"]);
    const users = dev["users"] as Json[];
    assert.equal(users.length, 1);
    const demo = users[0]!;
    assert.equal(demo["username"], "demo");
    assert.equal(demo["enabled"], true);
    assert.deepEqual(demo["attributes"], { org_id: [defaults("DEMO_ORG_ID")] });
    assert.deepEqual(demo["credentials"], [{ type: "password", value: defaults("DEMO_PASSWORD"), temporary: false }]);
  });

  test("has the operator console's public client: authorization code with PKCE S256 only, the run contract's redirect URI, the org_id mapper", () => {
    const consoleClient = clients.find((c) => c["clientId"] === "hirebridge-console");
    assert.ok(consoleClient, "client hirebridge-console");
    assert.equal(consoleClient["publicClient"], true);
    assert.equal(consoleClient["standardFlowEnabled"], true);
    assert.equal(consoleClient["directAccessGrantsEnabled"], false);
    assert.equal(consoleClient["implicitFlowEnabled"], false);
    assert.deepEqual(consoleClient["redirectUris"], [`http://127.0.0.1:${String(defaults("CONSOLE_PORT"))}/auth/callback`]);
    assert.deepEqual(consoleClient["webOrigins"], ["+"], "CORS for the redirect URI's origin (token and logout calls from the page)");
    assert.equal((consoleClient["attributes"] as Record<string, string>)["pkce.code.challenge.method"], "S256");
    const mappers = consoleClient["protocolMappers"] as Json[];
    assert.ok(
      mappers.some(
        (m) =>
          (m["config"] as Record<string, string>)["claim.name"] === "org_id" &&
          (m["config"] as Record<string, string>)["access.token.claim"] === "true",
      ),
    );
  });
});
