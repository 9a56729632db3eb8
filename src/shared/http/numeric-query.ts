import type { FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import { InputRefused } from "./storable-input.js";

type SchemaNode = { type?: unknown; anyOf?: SchemaNode[]; oneOf?: SchemaNode[]; properties?: Record<string, SchemaNode> };

const NUMERIC = new Set(["integer", "number"]);

/** The JSON Schema type a numeric query parameter declares (`integer` or `number`), if it is one. */
function numericType(node: SchemaNode | undefined): "integer" | "number" | null {
  if (!node) return null;
  const types = Array.isArray(node.type) ? node.type : [node.type];
  const found = types.find((t): t is "integer" | "number" => typeof t === "string" && NUMERIC.has(t));
  if (found) return found;
  for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) {
    const inner = numericType(branch);
    if (inner) return inner;
  }
  return null;
}

/** A decimal number as a query carries one: digits, an optional fraction and exponent. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A query value that is not a finite decimal number (an empty value is left to the schema). */
const notFinite = (v: unknown) => typeof v === "string" && v !== "" && (!DECIMAL.test(v.trim()) || !Number.isFinite(Number(v)));

/** A parameter (one value, or repeated) with a value that is not a finite decimal number. */
const badParam = (raw: unknown) => raw !== undefined && (Array.isArray(raw) ? raw.some(notFinite) : notFinite(raw));

/**
 * The numeric query parameters of a route, checked before validation: Ajv's type coercion turns
 * `1e309`, `Infinity` or `NaN` into a number without checking that it is finite, and its range
 * keywords then pass it, so `limit=1e309` reached a handler as Infinity (a 500 from the database, or
 * an unbounded page). A value that is not a finite decimal number answers as a validation failure
 * of that parameter (422 on the APIs). Built once per route at registration; null when the route
 * declares no numeric query parameter.
 */
export function finiteNumbersIn(
  schema: RouteOptions["schema"],
): ((request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void) | null {
  const props = (schema?.querystring as SchemaNode | undefined)?.properties ?? {};
  const numeric = Object.entries(props).flatMap(([name, node]) => {
    const type = numericType(node);
    return type ? [[name, type] as const] : [];
  });
  if (numeric.length === 0) return null;
  // Callback style: the check almost always passes, and an async hook would cost a promise and a tick.
  return (request, _reply, done) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (!query) return done();
    // No array or closure per request: the check passes almost always.
    let bad: (typeof numeric)[number][] | undefined;
    for (const param of numeric) {
      if (!badParam(query[param[0]])) continue;
      bad ??= [];
      bad.push(param);
    }
    if (bad === undefined) return done();
    done(
      new InputRefused(
        bad.map(([name, type]) => ({
          keyword: "type",
          instancePath: `/${name}`,
          message: type === "integer" ? "Input should be a valid integer" : "Input should be a valid number",
          params: { type },
        })),
        "querystring",
      ),
    );
  };
}
