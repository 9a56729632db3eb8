import type { Clock } from "../core/clock.js";
import { AbortedError, AuthenticationError } from "../core/errors.js";
import {
  completeSession,
  loginFailure,
  OAuthError,
  requestGrant,
  revokeSession,
  type Credentials,
  type Session,
  type SessionInput,
  type TokenEndpoint,
} from "./token-endpoint.js";

export type CredentialsSource = Credentials | (() => Credentials | Promise<Credentials>);

export type TokenManagerOptions = {
  endpoint: TokenEndpoint;
  clock: Clock;
  /** Used for the first login and whenever the session ends; without it an ended session is an error. */
  credentials?: CredentialsSource | undefined;
  /** A session to resume (for example one a CLI saved); expiry fields missing are read from the JWTs. */
  session?: SessionInput | undefined;
  /** Refresh this long before the access token expires. Default 120 s (the spec's "about 2 minutes"). */
  refreshLeewayMs?: number | undefined;
  scope?: string | undefined;
  /** Called with every new session (and null when it ends), before the new token is used. */
  onSession?: ((session: Session | null) => void | Promise<void>) | undefined;
  /**
   * Consulted before refreshing: another process sharing the session (a second CLI run) may already
   * have rotated the refresh token, and refreshing with the spent one would end the session.
   */
  loadSession?: (() => Promise<Session | null>) | undefined;
  /**
   * Runs each renewal under a lock shared with everyone else holding this session (other
   * processes, other browser tabs): with `loadSession` inside the lock, only the first holder
   * refreshes and the others adopt its tokens. E.g. `(work) => navigator.locks.request("hb", work)`.
   */
  lock?: (<T>(work: () => Promise<T>) => Promise<T>) | undefined;
};

const DEFAULT_LEEWAY_MS = 120_000;
// A refresh token this close to its end may expire in flight; log in again instead.
const REFRESH_TOKEN_MARGIN_MS = 5_000;

/**
 * The token lifecycle of the spec (Authentication 1-7): password login, refresh ahead of `exp`,
 * always the newest refresh token, a new login when the refresh token is dead.
 *
 * Refreshes are single-flight: every caller that needs a token while one is being obtained awaits
 * the same promise. Two refreshes with one refresh token would be a reuse, which the identity
 * provider punishes by ending the whole session. The generation counter makes an explicit
 * `setSession`/`clear` win over a refresh that was already in flight.
 */
export class TokenManager {
  private session: Session | null;
  private generation = 0;
  private inflight: Promise<Session> | null = null;
  private readonly leewayMs: number;

  constructor(private readonly opts: TokenManagerOptions) {
    this.session = opts.session ? completeSession(opts.session, opts.clock.now()) : null;
    this.leewayMs = opts.refreshLeewayMs ?? DEFAULT_LEEWAY_MS;
  }

  /** The current session (tokens and expiry), or null before the first login. */
  get current(): Session | null {
    return this.session;
  }

  /** A usable access token: the current one, or a fresh one when it is within the leeway of `exp`. */
  async getAccessToken(signal?: AbortSignal): Promise<string> {
    const s = this.session;
    if (s && this.isFresh(s)) return s.accessToken;
    return (await this.shared(() => this.renew(), signal)).accessToken;
  }

  /**
   * An API rejected `token` with 401. Marks it unusable so the next `getAccessToken` renews, unless
   * the session has moved on already (another caller refreshed after this request was sent).
   */
  invalidate(token: string): void {
    if (this.session?.accessToken === token) this.session = { ...this.session, accessExpiresAt: 0 };
  }

  /** Logs in with the credentials now, replacing any session. */
  async login(signal?: AbortSignal): Promise<Session> {
    return this.shared(() => this.passwordLogin(), signal);
  }

  /**
   * Completes a browser sign-in (authorization code with PKCE, RFC 7636): exchanges the code the
   * identity provider redirected back with, and keeps the session it yields. From then on the
   * session follows the same lifecycle as a password login's (refresh ahead of expiry, rotation).
   * @example
   * await hb.auth.signInWithCode({ code, redirectUri: `${location.origin}/auth/callback`, codeVerifier });
   */
  async signInWithCode(input: { code: string; redirectUri: string; codeVerifier: string }, signal?: AbortSignal): Promise<Session> {
    const form = { grant_type: "authorization_code", code: input.code, redirect_uri: input.redirectUri, code_verifier: input.codeVerifier };
    return this.shared(async () => {
      try {
        return await requestGrant(this.opts.endpoint, form, this.opts.clock.now());
      } catch (err) {
        throw err instanceof OAuthError ? loginFailure(err) : err;
      }
    }, signal);
  }

  /** Replaces the session (for example with tokens obtained elsewhere). */
  async setSession(input: SessionInput | null): Promise<void> {
    const session = input ? completeSession(input, this.opts.clock.now()) : null;
    this.generation++;
    this.session = session;
    await this.opts.onSession?.(session);
  }

  /** Ends the session at the identity provider and forgets it. */
  async logout(): Promise<void> {
    await this.inflight?.catch(() => undefined); // log out the newest refresh token, not a spent one
    const s = this.session;
    await this.setSession(null);
    if (s?.refreshToken) await revokeSession(this.opts.endpoint, s.refreshToken);
  }

  private isFresh(s: Session): boolean {
    // With very short lifetimes (strict realms, tests) a 120 s leeway would refresh on every call:
    // never refresh before half of the token's life has passed.
    const leeway = Math.min(this.leewayMs, (s.accessExpiresAt - s.issuedAt) / 2);
    return this.opts.clock.now() < s.accessExpiresAt - leeway;
  }

  /** Runs `work` unless a renewal is already in flight, in which case the caller joins it. */
  private async shared(work: () => Promise<Session>, signal?: AbortSignal): Promise<Session> {
    if (!this.inflight) {
      const generation = this.generation;
      const renewAndKeep = async () => {
        const next = await work();
        if (generation !== this.generation) {
          // setSession/clear ran meanwhile: the caller's explicit choice wins over this result.
          if (this.session) return this.session;
          throw new AuthenticationError("session_expired", "The session was ended while it was being renewed");
        }
        this.generation++;
        this.session = next;
        await this.opts.onSession?.(next);
        return next;
      };
      // The lock covers the renewal and the saving of its result, so the next holder reads it.
      const lock = this.opts.lock;
      this.inflight = (lock ? lock(renewAndKeep) : renewAndKeep()).finally(() => {
        this.inflight = null;
      });
    }
    // One caller giving up must not cancel the renewal the others are waiting for.
    return signal ? raceAbort(this.inflight, signal) : this.inflight;
  }

  private async renew(): Promise<Session> {
    let s = this.session;
    if (this.opts.loadSession) {
      const stored = await this.opts.loadSession();
      if (stored && stored.refreshToken !== s?.refreshToken) {
        // Someone else already rotated: their tokens are newer than ours.
        if (this.isFresh(stored)) return stored;
        s = stored;
      }
    }
    let refused = false;
    if (s && this.refreshUsable(s)) {
      try {
        return await requestGrant(
          this.opts.endpoint,
          { grant_type: "refresh_token", refresh_token: s.refreshToken },
          this.opts.clock.now(),
        );
      } catch (err) {
        // invalid_grant: the refresh token expired, was revoked or reused. Any other failure
        // (network, 5xx) leaves the session as it is, to be tried again on the next call.
        if (!(err instanceof OAuthError)) throw err;
        if (err.error !== "invalid_grant") throw loginFailure(err);
        refused = true;
      }
    }
    if (!this.opts.credentials && !this.opts.endpoint.clientSecret) {
      this.session = null;
      await this.opts.onSession?.(null);
      throw s
        ? new AuthenticationError(
            "session_expired",
            "The session has ended and no credentials were given to log in again",
            refused ? "invalid_grant" : null,
          )
        : new AuthenticationError("no_credentials", "No credentials or session were given: cannot log in");
    }
    return this.passwordLogin();
  }

  private refreshUsable(s: Session): boolean {
    if (!s.refreshToken) return false;
    return s.refreshExpiresAt === null || this.opts.clock.now() < s.refreshExpiresAt - REFRESH_TOKEN_MARGIN_MS;
  }

  /**
   * A service account's token (grant_type=client_credentials with the endpoint's client secret): no
   * refresh token comes with it, so each renewal asks again, ahead of `exp` as for a refresh.
   */
  private async clientCredentialsLogin(): Promise<Session> {
    const form: Record<string, string> = { grant_type: "client_credentials" };
    if (this.opts.scope) form["scope"] = this.opts.scope;
    try {
      return await requestGrant(this.opts.endpoint, form, this.opts.clock.now());
    } catch (err) {
      throw err instanceof OAuthError ? loginFailure(err) : err;
    }
  }

  private async passwordLogin(): Promise<Session> {
    if (this.opts.endpoint.clientSecret) return this.clientCredentialsLogin();
    const source = this.opts.credentials;
    if (!source) throw new AuthenticationError("no_credentials", "No credentials were given: cannot log in");
    const { username, password } = typeof source === "function" ? await source() : source;
    const form: Record<string, string> = { grant_type: "password", username, password };
    if (this.opts.scope) form["scope"] = this.opts.scope;
    try {
      return await requestGrant(this.opts.endpoint, form, this.opts.clock.now());
    } catch (err) {
      throw err instanceof OAuthError ? loginFailure(err) : err;
    }
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new AbortedError("The request was aborted", { cause: signal.reason }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortedError("The request was aborted", { cause: signal.reason }));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
