/**
 * The deepest nesting of arrays and objects a JSON body may have, on every route of every service
 * and in every webhook event. Real bodies nest a handful of levels; a body nested thousands deep is
 * an attack on the code that walks it recursively (JSON.stringify, validators, drivers), which
 * would overflow the stack: a 500 or, at the webhook receivers, a failed group commit.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether JSON `text` nests arrays and objects deeper than `limit`, read before it is parsed: one
 * pass over the characters, skipping strings, no recursion and no allocation. A body too short to
 * hold `limit + 1` opening brackets is answered without reading it. Malformed JSON is the parser's
 * to refuse; this only counts brackets.
 */
export function nestedDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  if (text.length <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}

/** The message of the 422 (or the service's own validation answer) for such a body. */
export const TOO_DEEP_MESSAGE = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
