import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError, unauthorized } from "../errors.js";
import { TokenInvalidError, VerifierUnavailableError, type Principal, type Verify } from "./verify-jwt.js";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the bearer hook on protected routes. */
    principal?: Principal;
  }
}

/**
 * An `onRequest` hook for the protected route groups. Missing, malformed or invalid tokens answer
 * 401 with `WWW-Authenticate: Bearer error="invalid_token"`; the token itself is never logged.
 */
export function bearerAuth(verify: Verify) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    if (!header) throw unauthorized("Not authenticated");
    const match = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header);
    if (!match?.[1]) throw unauthorized("Authorization header must be 'Bearer <token>'");
    try {
      request.principal = await verify(match[1]);
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
