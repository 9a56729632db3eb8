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

/** Whether a path segment or a query value (`opaque` says which alphabet) looks like a credential. */
function looksSecret(v: string, opaque: RegExp): boolean {
  if (v.length < 16) return false;
  if (CREDENTIAL.test(v)) return true;
  return v.length >= RANDOM_LENGTH && opaque.test(v) && !UUID.test(v) && mixesClasses(v);
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

/** The path with every raw segment that holds a secret replaced. */
function redactPath(path: string): string {
  const raw = path.split("/");
  let secret: Set<number>;
  if (NEEDS_NORMALISING.test(path)) {
    const parts = normalisedParts(raw);
    secret = parts.secret;
    markHeldTokens(parts.resolved, secret);
    markHeldTokens(parts.listed, secret);
  } else {
    secret = new Set();
    const parts: Part[] = [];
    raw.forEach((name, i) => {
      if (name === "") return;
      if (looksSecret(name, OPAQUE_SEGMENT)) secret.add(i);
      parts.push({ name, raw: i });
    });
    markHeldTokens(parts, secret);
  }
  if (secret.size === 0) return path;
  return raw.map((segment, i) => (secret.has(i) ? REDACTED : segment)).join("/");
}

/** A query string with credential values (by name or by shape) replaced; unchanged when it has none. */
function redactQuery(query: string, depth: number): string {
  const params = new URLSearchParams(query);
  const out = new URLSearchParams();
  let changed = false;
  for (const [key, value] of params) {
    const name = looksSecret(key, OPAQUE_VALUE) ? REDACTED : key;
    const lower = key.toLowerCase();
    let kept = value;
    if (value !== "" && (SECRET_NAMES.has(lower) || SECRET_NAME_PART.test(lower) || looksSecret(value, OPAQUE_VALUE))) kept = REDACTED;
    else if (depth < 2 && URL_LIKE.test(value)) kept = redactAt(value, depth + 1);
    if (kept !== value || name !== key) changed = true;
    out.append(name, kept);
  }
  return changed ? out.toString() : query;
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
