/**
 * Secrets kept out of logged and traced URLs by what they are, not by one spelling of the path:
 * the segment after a path that holds a token (the interview link, the connect flow's tokens),
 * however the path is spelled (percent-encoded, any case, doubled slashes, dot segments, `;`
 * parameters, an encoded slash); any path segment or query value shaped like a credential (a JWT,
 * an Authorization header's value, a long opaque token); and every query value whose name says it
 * is a credential. The access log, the request serializer, the traces and the upstream client's
 * retry lines all go through redactUrl.
 */

const REDACTED = "<redacted>";

/** Query names whose values are credentials: these exactly, or any name containing SECRET_NAME_PART. */
const SECRET_NAMES = new Set(["code", "key", "sig", "auth"]);
const SECRET_NAME_PART = /token|secret|passw|authorization|signature|api[_-]?key|credential|jwt/i;

/** A JWS/JWT anywhere (its header is base64url JSON, so it starts `eyJ`), or an Authorization header's value. */
const CREDENTIAL = /eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]|^\s*(?:bearer|basic|digest|token)\s+\S/i;
/** A long opaque token: base64, base64url or hex characters (RANDOM_LENGTH of them at least). */
const OPAQUE_SEGMENT = /^[A-Za-z0-9_~+=.-]+$/;
const OPAQUE_VALUE = /^[A-Za-z0-9_~+/=.-]+$/;
const RANDOM_LENGTH = 32;
/** Ids, not secrets: the APIs' own ids are UUIDs. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A value that is a URL or a path (`?next=/interview/…`): redacted as one. */
const URL_LIKE = /^(?:\/|[a-z][a-z0-9+.-]*:\/\/)/i;
/** scheme://[userinfo@]host of an absolute URL. */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;
/**
 * What makes a path need decoding and normalising before it can be judged: an escape, a `;`
 * parameter, a backslash, a doubled slash or a dot segment. Most paths have none and are judged
 * segment by segment as they are.
 */
const NEEDS_NORMALISING = /[%;\\]|\/\/|\/\./;

/** Upper case, lower case and digits: random tokens mix at least two, words and routes rarely. */
function mixesClasses(v: string): boolean {
  const lower = /[a-z]/.test(v);
  const upper = /[A-Z]/.test(v);
  const digit = /[0-9]/.test(v);
  return (lower ? 1 : 0) + (upper ? 1 : 0) + (digit ? 1 : 0) >= 2;
}

/** A UUID's shape (dashes at 8, 13, 18, 23), checked by position before any regex. */
const uuidShaped = (v: string) => v.length === 36 && v[8] === "-" && v[13] === "-" && v[18] === "-" && v[23] === "-" && UUID.test(v);

/** Whether a path segment or a query value (`opaque` says which alphabet) looks like a credential. */
function looksSecret(v: string, opaque: RegExp): boolean {
  if (v.length < 16 || uuidShaped(v)) return false;
  if (CREDENTIAL.test(v)) return true;
  return v.length >= RANDOM_LENGTH && opaque.test(v) && mixesClasses(v);
}

/** `%xx` escapes decoded byte by byte (never throws; what matters here is ASCII). */
const decoded = (s: string) =>
  s.includes("%") ? s.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))) : s;

/** A segment of the path as the router would see it, and the raw segment it comes from. */
type Part = { name: string; raw: number };

/**
 * The path's segments decoded and normalised (escapes decoded, `\` and an encoded slash as `/`,
 * `;` parameters dropped, empty and `.` segments skipped), each with the raw segment it came from.
 * `..` is resolved in `resolved`, skipped in `listed`: a token is found whichever a proxy does.
 */
function normalisedParts(raw: string[]): { resolved: Part[]; listed: Part[]; secret: Set<number> } {
  const resolved: Part[] = [];
  const listed: Part[] = [];
  const secret = new Set<number>();
  raw.forEach((segment, i) => {
    for (const piece of decoded(segment).split(/[/\\]/)) {
      const [name = "", ...params] = piece.split(";");
      if (looksSecret(name, OPAQUE_SEGMENT) || params.some((p) => looksSecret(p.slice(p.indexOf("=") + 1), OPAQUE_SEGMENT))) {
        secret.add(i);
      }
      if (name === "" || name === ".") continue;
      if (name === "..") resolved.pop();
      else {
        resolved.push({ name, raw: i });
        listed.push({ name, raw: i });
      }
    }
  });
  return { resolved, listed, secret };
}

const is = (part: Part | undefined, name: string) =>
  part !== undefined && part.name.length === name.length && part.name.toLowerCase() === name;

/**
 * Marks the segments that paths holding a token hold: `/interview/{token}` (at the start: the
 * candidate's page; `…/interview/correction` elsewhere is a route), `/assessment-results/{token}`
 * (the recruiter's results page), `…/integration-by-token/{token}`
 * and `…/connect/link/{token}`.
 */
function markHeldTokens(parts: Part[], secret: Set<number>): void {
  const hold = (i: number) => {
    const held = parts[i];
    if (held) secret.add(held.raw);
  };
  if (is(parts[0], "interview") || is(parts[0], "assessment-results")) hold(1);
  for (let i = 0; i < parts.length; i++) {
    if (is(parts[i], "integration-by-token") || (is(parts[i], "link") && is(parts[i - 1], "connect"))) hold(i + 1);
  }
}

/** A UUID's dashes in place (the APIs' ids, in most paths): skipped without cutting the segment out. */
const dashedLikeUuid = (path: string, start: number, end: number) =>
  end - start === 36 && path[start + 8] === "-" && path[start + 13] === "-" && path[start + 18] === "-" && path[start + 23] === "-";

/** Whether `path` from `start` to `end` is `name`, in any case, without making a string of it. */
function segmentIs(path: string, start: number, end: number, name: string): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) if ((path.charCodeAt(start + i) | 0x20) !== name.charCodeAt(i)) return false;
  return true;
}

/**
 * A path that needs no normalising, judged as it is, in one pass over its segments by index: only a
 * segment long enough to be a token is cut out and looked at, a holder's name is compared in place
 * (this runs on every request; most paths have nothing to redact and are answered unchanged).
 */
function redactPlainPath(path: string): string {
  let out = "";
  let copied = 0;
  let holds = false; // the previous segment holds a token
  let previous = -1; // start of the previous segment
  let index = 0;
  for (let start = path.startsWith("/") ? 1 : 0; start <= path.length; index++) {
    const slash = path.indexOf("/", start);
    const end = slash === -1 ? path.length : slash;
    if (
      end > start &&
      (holds || (end - start >= 16 && !dashedLikeUuid(path, start, end) && looksSecret(path.slice(start, end), OPAQUE_SEGMENT)))
    ) {
      out += `${path.slice(copied, start)}${REDACTED}`;
      copied = end;
    }
    holds =
      (index === 0 && (segmentIs(path, start, end, "interview") || segmentIs(path, start, end, "assessment-results"))) ||
      segmentIs(path, start, end, "integration-by-token") ||
      (segmentIs(path, start, end, "link") && previous >= 0 && segmentIs(path, previous, start - 1, "connect"));
    previous = start;
    start = end + 1;
  }
  return copied === 0 ? path : out + path.slice(copied);
}

/** The path with every raw segment that holds a secret replaced. */
function redactPath(path: string): string {
  if (!NEEDS_NORMALISING.test(path)) return redactPlainPath(path);
  const raw = path.split("/");
  const parts = normalisedParts(raw);
  const secret = parts.secret;
  markHeldTokens(parts.resolved, secret);
  markHeldTokens(parts.listed, secret);
  if (secret.size === 0) return path;
  return raw.map((segment, i) => (secret.has(i) ? REDACTED : segment)).join("/");
}

/** Whether a query parameter's value is a credential, by its name or its shape. */
const secretParam = (key: string, value: string) => {
  if (value === "") return false;
  const lower = key.toLowerCase();
  return SECRET_NAMES.has(lower) || SECRET_NAME_PART.test(lower) || looksSecret(value, OPAQUE_VALUE);
};

/** A query string with credential values (by name or by shape) replaced; unchanged when it has none. */
function redactQuery(query: string, depth: number): string {
  const params = [...new URLSearchParams(query)];
  const kept = params.map(([key, value]) => {
    const name = looksSecret(key, OPAQUE_VALUE) ? REDACTED : key;
    if (secretParam(key, value)) return [name, REDACTED];
    return [name, depth < 2 && URL_LIKE.test(value) ? redactAt(value, depth + 1) : value];
  });
  const changed = kept.some(([name, value], i) => name !== params[i]![0] || value !== params[i]![1]);
  return changed ? new URLSearchParams(kept).toString() : query;
}

function redactAt(url: string, depth: number): string {
  let origin = "";
  let rest = url;
  if (!url.startsWith("/")) {
    const found = ORIGIN.exec(url)?.[0];
    if (found) {
      // user:password@host
      origin = found.replace(/\/\/[^/@]*@/, `//${REDACTED}@`);
      rest = url.slice(found.length);
    }
  }
  const hash = rest.indexOf("#");
  const fragment = hash === -1 ? "" : `#${redactQuery(rest.slice(hash + 1), depth)}`;
  const beforeHash = hash === -1 ? rest : rest.slice(0, hash);
  const q = beforeHash.indexOf("?");
  const path = redactPath(q === -1 ? beforeHash : beforeHash.slice(0, q));
  const query = q === -1 ? "" : `?${redactQuery(beforeHash.slice(q + 1), depth)}`;
  return `${origin}${path}${query}${fragment}`;
}

/** A request URL (a path and query, or an absolute URL) with secret values replaced, safe to log. */
export function redactUrl(url: string): string {
  return redactAt(url, 0);
}
