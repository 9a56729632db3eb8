import type { FastifyRequest } from "fastify";
import { validationError } from "../../../shared/errors.js";
import { nestedDeeperThan, TOO_DEEP_MESSAGE } from "../../../shared/http/json-depth.js";
import { utf8Text } from "../../../shared/http/storable-input.js";

/**
 * A signed webhook's raw body as JSON, read after its signature was checked on the bytes: UTF-8,
 * nested at most MAX_JSON_DEPTH deep (measured on the text, before parsing builds anything), and
 * parseable; anything else is a 422 in the spec's shape. Every receiver (the six kinds and the two
 * order kinds) reads its body through this one function.
 */
export function parseWebhookJson(raw: Buffer): unknown {
  const text = utf8Text(raw);
  if (nestedDeeperThan(text)) throw validationError([{ loc: ["body"], msg: TOO_DEEP_MESSAGE, type: "value_error" }]);
  try {
    return JSON.parse(text);
  } catch {
    throw validationError([{ loc: ["body", 0], msg: "JSON decode error", type: "json_invalid" }]);
  }
}

/** A request header's first value. */
export function firstHeader(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}
