import type { CredentialRepresentation, UserRepresentation, UserRepresentationInput, UserSearchQuery } from "../../contracts/token.js";
import { TokenManager, type CredentialsSource } from "../auth/token-manager.js";
import { endpointsFor } from "../auth/token-endpoint.js";
import { systemClock, type Clock } from "../core/clock.js";
import { ConfigurationError, HirebridgeError } from "../core/errors.js";
import { HttpClient, type RequestOptions } from "../core/http-client.js";
import { DEFAULT_RETRY_POLICY } from "../core/retry.js";
import { globalFetch, type FetchLike } from "../core/transport.js";
import { path, requireSecureBaseUrl } from "../core/url.js";

export type HirebridgeAdminOptions = {
  /** URL of the realm whose users to manage, e.g. `https://id.example.com/realms/hirebridge`. */
  authUrl: string;
  /** The administrator's login (Keycloak's `admin` user of the admin realm). */
  credentials: CredentialsSource;
  /** Realm the administrator logs in to. Default `master`. */
  adminRealm?: string | undefined;
  /** Client the administrator logs in with. Default `admin-cli`. */
  adminClientId?: string | undefined;
  fetch?: FetchLike | undefined;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  clock?: Clock | undefined;
};

/** A new user: Keycloak's representation plus the initial password. */
export type NewUser = {
  username: string;
  email?: string | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
  /** The organisation the user's tokens carry as `org_id`. */
  orgId?: string | undefined;
  password?: string | undefined;
  /** Require a password change at first login. */
  temporaryPassword?: boolean | undefined;
  enabled?: boolean | undefined;
};

/**
 * User management through the subset of Keycloak's Admin REST API that Hirebridge's embedded
 * identity provider serves, so the same code manages a real Keycloak realm.
 *
 * @example
 * const admin = new HirebridgeAdmin({
 *   authUrl: "http://127.0.0.1:8080/realms/hirebridge",
 *   credentials: { username: "admin", password: "admin-password" },
 * });
 * const { id } = await admin.users.create({ username: "lin", email: "lin@example.com", orgId, password: "s3cret-pass" });
 */
export class HirebridgeAdmin {
  readonly users: UsersAdmin;

  constructor(options: HirebridgeAdminOptions) {
    const realmUrl = requireSecureBaseUrl(options.authUrl, "authUrl");
    const match = /^(.*)\/realms\/([^/]+)$/.exec(realmUrl);
    if (!match) throw new ConfigurationError("authUrl must end with /realms/<realm>");
    const [, origin, realm] = match as unknown as [string, string, string];
    const fetch = options.fetch ?? globalFetch;
    const clock = options.clock ?? systemClock;
    const timeoutMs = options.timeoutMs ?? 30_000;
    const tokens = new TokenManager({
      endpoint: {
        ...endpointsFor(`${origin}/realms/${options.adminRealm ?? "master"}`),
        clientId: options.adminClientId ?? "admin-cli",
        fetch,
        timeoutMs,
      },
      clock,
      credentials: options.credentials,
    });
    const http = new HttpClient({
      fetch,
      clock,
      timeoutMs,
      retry: { ...DEFAULT_RETRY_POLICY, maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries },
      tokens,
    });
    this.users = new UsersAdmin(http, `${origin}/admin/realms/${encodeURIComponent(realm)}`);
  }
}

export class UsersAdmin {
  constructor(
    private readonly http: HttpClient,
    private readonly baseUrl: string,
  ) {}

  /** Searches users (`username`, `email`, `search`, `exact`, paging with `first`/`max`). */
  list(query: UserSearchQuery = {}, options?: RequestOptions): Promise<UserRepresentation[]> {
    return this.http.request({ method: "GET", baseUrl: this.baseUrl, path: "/users", query }, options);
  }

  get(id: string, options?: RequestOptions): Promise<UserRepresentation> {
    return this.http.request({ method: "GET", baseUrl: this.baseUrl, path: path`/users/${id}` }, options);
  }

  /** The user with exactly this username, or null. */
  async findByUsername(username: string, options?: RequestOptions): Promise<UserRepresentation | null> {
    const found = await this.list({ username, exact: true }, options);
    return found.find((u) => u.username.toLowerCase() === username.toLowerCase()) ?? null;
  }

  /** Creates a user and answers its id (from the 201's `Location`). A taken username is a ConflictError. */
  async create(user: NewUser, options?: RequestOptions): Promise<{ id: string }> {
    const body: UserRepresentationInput = {
      username: user.username,
      enabled: user.enabled ?? true,
      ...(user.email !== undefined ? { email: user.email } : {}),
      ...(user.firstName !== undefined ? { firstName: user.firstName } : {}),
      ...(user.lastName !== undefined ? { lastName: user.lastName } : {}),
      ...(user.orgId !== undefined ? { attributes: { org_id: [user.orgId] } } : {}),
      ...(user.password !== undefined
        ? { credentials: [{ type: "password", value: user.password, temporary: user.temporaryPassword ?? false }] }
        : {}),
    };
    const res = await this.http.send<null>({ method: "POST", baseUrl: this.baseUrl, path: "/users", body }, options);
    const id = res.headers.get("location")?.split("/").pop();
    if (!id) throw new HirebridgeError("The admin API created the user but named no Location");
    return { id: decodeURIComponent(id) };
  }

  /** Changes the fields sent. */
  async update(id: string, changes: UserRepresentationInput, options?: RequestOptions): Promise<void> {
    await this.http.request({ method: "PUT", baseUrl: this.baseUrl, path: path`/users/${id}`, body: changes }, options);
  }

  async resetPassword(id: string, password: string, opts: { temporary?: boolean } = {}, options?: RequestOptions): Promise<void> {
    const body: CredentialRepresentation = { type: "password", value: password, temporary: opts.temporary ?? false };
    await this.http.request({ method: "PUT", baseUrl: this.baseUrl, path: path`/users/${id}/reset-password`, body }, options);
  }

  async delete(id: string, options?: RequestOptions): Promise<void> {
    await this.http.request({ method: "DELETE", baseUrl: this.baseUrl, path: path`/users/${id}` }, options);
  }

  /** Ends every session of the user: their refresh tokens stop working. */
  async logout(id: string, options?: RequestOptions): Promise<void> {
    await this.http.request({ method: "POST", baseUrl: this.baseUrl, path: path`/users/${id}/logout`, idempotent: true }, options);
  }
}
