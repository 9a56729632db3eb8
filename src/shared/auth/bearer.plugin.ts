import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, unauthorized } from "../errors.js";
import { type ApiName, scopeRefusal } from "./token-scopes.js";
import { TokenInvalidError, VerifierUnavailableError, type Principal, type Verify } from "./verify-jwt.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the bearer hook on protected routes. */
    principal?: Principal;
  }
}

const BEARER = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i;

/**
 * The token of the last Authorization header seen on each connection. A client sends the same
 * header on every request of a keep-alive connection until it refreshes its token; remembering the
 * extracted token (the same string object each time) spares parsing the header again, and lets the
 * verifier's caches find it without hashing a kilobyte of token per request.
 */
const lastToken = new WeakMap<object, { header: string; token: string }>();

/** The token of a `Bearer <token>` header (RFC 6750 b64token); undefined when malformed. */
function bearerToken(request: FastifyRequest, header: string): string | undefined {
  const socket = request.raw.socket as object | undefined;
  const memo = socket ? lastToken.get(socket) : undefined;
  if (memo?.header === header) return memo.token;
  const token = BEARER.exec(header)?.[1];
  if (token && socket) lastToken.set(socket, { header, token });
  return token;
}

/** The 401/503 a failed verification answers. */
function refusal(err: unknown): unknown {
  if (err instanceof TokenInvalidError) return unauthorized(`Invalid token: ${err.message}`);
  if (err instanceof VerifierUnavailableError) {
    return new AppError("UNAVAILABLE", "Token verification is temporarily unavailable", { cause: err });
  }
  return err;
}

/**
 * An `onRequest` hook for the protected route groups. Missing, malformed or invalid tokens answer
 * 401 with `WWW-Authenticate: Bearer error="invalid_token"`; the token itself is never logged.
 * Callback style: a token the verifier has verified before (`verify.peek`) passes without a promise
 * or a tick (a client sends the same token on every request until it refreshes it).
 */
export function bearerAuth(verify: Verify, api?: ApiName) {
  return function authenticate(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
    const header = request.headers.authorization;
    const token = header ? bearerToken(request, header) : undefined;
    if (!token) {
      done(unauthorized(header ? "Authorization header must be 'Bearer <token>'" : "Not authenticated"));
      return;
    }
    const known = verify.peek?.(token);
    if (known) {
      request.principal = known;
      done(scopeRefusal(known, request.method, api));
      return;
    }
    verify(token).then(
      (principal) => {
        request.principal = principal;
        done(scopeRefusal(principal, request.method, api));
      },
      (err: unknown) => done(refusal(err) as Error),
    );
  };
}

/** The verified caller; only valid on routes behind `bearerAuth`. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}

/** The OpenAPI security of a bearer-protected operation: `registerOpenApi` adds the OAuth2 scheme beside it. */
export const BEARER_SECURITY = [{ bearer: [] }];

/**
 * Puts a route group behind the bearer token: every request is authenticated (`bearerAuth`) and held
 * to its token's limits on `api` (token-scopes.ts: `read`, `recruiting`), and
 * every route registered in the group, its plugins' included, declares the bearer security in the
 * OpenAPI document, so the docs page's "Try it out" sends the token. One call does both, so a route
 * added to a protected group cannot be protected without saying so.
 */
export function protectWithBearer(scope: FastifyInstance, verify: Verify, api?: ApiName): void {
  scope.addHook("onRoute", (route) => {
    route.schema = { ...route.schema, security: route.schema?.security ?? BEARER_SECURITY };
  });
  scope.addHook("onRequest", bearerAuth(verify, api));
}
