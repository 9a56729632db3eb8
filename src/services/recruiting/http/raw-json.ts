import type { FastifyReply } from "fastify";

/**
 * Sends JSON that is already the answer (built by the database). Fastify passes a string or Buffer
 * with a JSON content type through as it is; the route's response schema still documents the shape.
 */
export function sendJsonText(reply: FastifyReply, json: string | Buffer): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(json);
}
