import { isUtf8 } from "node:buffer";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ValidationIssue } from "../errors.js";
import { MAX_JSON_DEPTH, TOO_DEEP_MESSAGE } from "./json-depth.js";

/**
 * Input that storage cannot hold is refused as input, in one place for every service. Postgres
 * (and PGlite) refuse the NUL character in text and jsonb; an unpaired UTF-16 surrogate (a JSON
 * `"\ud800"`) cannot be encoded as UTF-8 at all, so the driver would store U+FFFD in its place;
 * body bytes that are not UTF-8 would be decoded into U+FFFD silently. Each of these reached the
 * database as a 500 or as a silently altered value before.
 *
 * The failures are raised as Fastify raises schema validation failures (`validation` and
 * `validationContext`), so every service's own error handler renders them in its own style: the
 * recruiting API and the proxy as 422 HTTPValidationError with the field's `loc`, the token
 * service as 400 `invalid_request`, its admin API as 400 `errorMessage`.
 */

/** NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point of this pattern
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const isStorable = (s: string): boolean => !UNSTORABLE.test(s);

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * The route checks its own input after something that must come first (the webhook receivers
     * authenticate the raw bytes, then check the event with `utf8Text` and `unstorableIssues`).
     */
    checksOwnInput?: boolean;
  }
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set by the route's onRequest hook when its config says `checksOwnInput` (see createApp). */
    checksOwnInput: boolean;
  }
}

/** onRequest hook of the routes whose config says `checksOwnInput`. */
export function markChecksOwnInput(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  request.checksOwnInput = true;
  done();
}

type Found = { path: (string | number)[]; message: string };

function describe(s: string): string {
  return s.includes("\u0000") ? "String should not contain NUL characters" : "String should not contain unpaired surrogates";
}

/** A place in the walked value: its key and its parent, so a path is built only for a finding. */
type Place = { key: string | number; parent: Place | null } | null;

function pathOf(place: Place, rootPath: (string | number)[]): (string | number)[] {
  const keys: (string | number)[] = [];
  for (let p = place; p; p = p.parent) keys.push(p.key);
  return [...rootPath, ...keys.reverse()];
}

/** At most this many places are reported; the first are enough to fix the input. */
const MAX_FINDINGS = 20;

/**
 * The places in a parsed value (strings at any depth, and object keys) that storage cannot hold.
 * Iterative and linear in the size of the value, so a body nested deeper than the call stack
 * allows is walked in time proportional to its length, not refused with a RangeError (500).
 */
function findUnstorable(root: unknown, rootPath: (string | number)[], out: Found[]): void {
  const stack: [unknown, Place][] = [[root, null]];
  while (stack.length && out.length < MAX_FINDINGS) {
    const [value, place] = stack.pop()!;
    if (typeof value === "string") {
      if (!isStorable(value)) out.push({ path: pathOf(place, rootPath), message: describe(value) });
      continue;
    }
    if (typeof value !== "object" || value === null || ArrayBuffer.isView(value)) continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], { key: i, parent: place }]);
      continue;
    }
    const keys = Object.keys(value);
    for (let k = keys.length - 1; k >= 0; k--) {
      const key = keys[k]!;
      const at = { key, parent: place };
      if (!isStorable(key)) out.push({ path: pathOf(at, rootPath), message: describe(key) });
      else stack.push([(value as Record<string, unknown>)[key], at]);
    }
  }
}

type Context = "params" | "querystring" | "body";
const CONTEXTS: readonly Context[] = ["params", "querystring", "body"];

/** The unstorable places in `value` as HTTPValidationError entries rooted at `loc` (e.g. ["body"]). */
export function unstorableIssues(value: unknown, loc: (string | number)[]): ValidationIssue[] {
  const found: Found[] = [];
  findUnstorable(value, [], found);
  return found.map((f) => ({ loc: [...loc, ...f.path], msg: f.message, type: "string_pattern_mismatch" }));
}

/** An Ajv-shaped error, so the services' handlers treat it as any other validation failure. */
type AjvLike = { keyword: string; instancePath: string; message: string; params: Record<string, unknown> };

export class InputRefused extends Error {
  override name = "InputRefused";
  readonly statusCode = 400;
  readonly code = "FST_ERR_VALIDATION";
  constructor(
    readonly validation: AjvLike[],
    readonly validationContext: Context,
  ) {
    super(validation[0]?.message ?? "Invalid input");
  }
}

const pointer = (path: (string | number)[]) => path.map((p) => `/${String(p).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");

function refused(context: Context, found: Found[]): InputRefused {
  return new InputRefused(
    found.map((f) => ({ keyword: "storable", instancePath: pointer(f.path), message: f.message, params: {} })),
    context,
  );
}

/** A body nested deeper than MAX_JSON_DEPTH (json-depth.ts), refused as input before it is parsed. */
export const tooDeep = () =>
  new InputRefused([{ keyword: "depth", instancePath: "", message: TOO_DEEP_MESSAGE, params: { limit: MAX_JSON_DEPTH } }], "body");

/** Throws InputRefused when the bytes are not UTF-8; otherwise their text. */
export function utf8Text(raw: Buffer): string {
  if (!isUtf8(raw)) {
    throw new InputRefused([{ keyword: "storable", instancePath: "", message: "Body is not valid UTF-8", params: {} }], "body");
  }
  return raw.toString("utf8");
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Query parameters whose percent-encoding does not decode to UTF-8 (`%FF`, or `%ED%A0%80`, a
 * surrogate encoded as bytes): the query parser keeps such text undecoded, which would be passed
 * on or stored as the literal `%FF`.
 */
function undecodableQuery(url: string): Found[] {
  const q = url.indexOf("?");
  if (q < 0 || url.indexOf("%", q) < 0) return [];
  // The common case in one call: a percent-encoded sequence never spans `&` or `=`, so the whole
  // query decodes exactly when every name and value does.
  if (decodes(url.slice(q + 1))) return [];
  const found: Found[] = [];
  for (const part of url.slice(q + 1).split("&")) {
    const eq = part.indexOf("=");
    const name = eq < 0 ? part : part.slice(0, eq);
    for (const text of eq < 0 ? [part] : [name, part.slice(eq + 1)]) {
      try {
        decodeURIComponent(text.replace(/\+/g, " "));
      } catch {
        let shown = name;
        try {
          shown = decodeURIComponent(name);
        } catch {
          // the name itself is undecodable: show it as sent
        }
        found.push({ path: [shown], message: "Query parameter is not valid UTF-8 (percent-encoding)" });
        break;
      }
    }
  }
  return found;
}

/**
 * preValidation hook of every storage-backed service (routes that check their own input are skipped): path parameters, query (its raw text too),
 * and the parsed body at any depth (a raw Buffer body, the webhook receivers', is checked by its route after it has
 * been authenticated). Header values need nothing here: Node's parser refuses NUL and control
 * characters in them, and they are Latin-1, so they hold no surrogates. Callback style: an async
 * hook costs every request a promise and a tick for a check that finds nothing almost always.
 */
export function refuseUnstorable(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  done(request.checksOwnInput ? undefined : unstorableInput(request));
}

function unstorableInput(request: FastifyRequest): InputRefused | undefined {
  const badQuery = undecodableQuery(request.raw.url ?? "");
  if (badQuery.length) return refused("querystring", badQuery);
  for (const context of CONTEXTS) {
    const value = context === "params" ? request.params : context === "querystring" ? request.query : request.body;
    if (value === undefined || value === null) continue;
    const found: Found[] = [];
    findUnstorable(value, [], found);
    if (found.length) return refused(context, found);
  }
  return undefined;
}
