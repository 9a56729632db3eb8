import type { FastifyReply } from "fastify";

/**
 * Sends JSON text that is already the answer (built by the database). Fastify passes a string with
 * a JSON content type through as it is; the route's response schema still documents the shape.
 */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(json);
}
