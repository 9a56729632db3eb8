import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError, unauthorized } from "../errors.js";
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

/**
 * An `onRequest` hook for the protected route groups. Missing, malformed or invalid tokens answer
 * 401 with `WWW-Authenticate: Bearer error="invalid_token"`; the token itself is never logged.
 */
export function bearerAuth(verify: Verify) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    if (!header) throw unauthorized("Not authenticated");
    const token = bearerToken(request, header);
    if (!token) throw unauthorized("Authorization header must be 'Bearer <token>'");
    try {
      request.principal = await verify(token);
    } catch (err) {
      if (err instanceof TokenInvalidError) throw unauthorized(`Invalid token: ${err.message}`);
      if (err instanceof VerifierUnavailableError) {
        throw new AppError("UNAVAILABLE", "Token verification is temporarily unavailable", { cause: err });
      }
      throw err;
    }
  };
}

/** The verified caller; only valid on routes behind `bearerAuth`. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized();
  return request.principal;
}
