import type { Client, Realm } from "../realms.js";
import { oauthError } from "../token-errors.js";

/** The client_id of a token/logout request: the form field, or the user part of HTTP Basic auth. */
function clientIdOf(formClientId: string | undefined, authorization: string | undefined): string | undefined {
  if (formClientId) return formClientId;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? "");
  if (!basic?.[1]) return undefined;
  const decoded = Buffer.from(basic[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const id = decodeURIComponent(colon === -1 ? decoded : decoded.slice(0, colon));
  return id || undefined;
}

/**
 * Finds the calling client. All clients here are public (no secret: a secret sent anyway is
 * ignored, as Keycloak does for public clients); an unknown one is 401 invalid_client.
 */
export function resolveClient(realm: Realm, formClientId: string | undefined, authorization: string | undefined): Client {
  const clientId = clientIdOf(formClientId, authorization);
  if (!clientId) throw oauthError(400, "invalid_request", "Missing parameter: client_id");
  const client = realm.clients.get(clientId);
  if (!client) throw oauthError(401, "invalid_client", "Invalid client or Invalid client credentials");
  return client;
}
