import { pino, type Logger } from "pino";

/** Query parameters and path segments whose values are secrets and must never reach a log line. */
const SECRET_QUERY = /^(webhook_secret|token|access_token|refresh_token|password|api_key|code)$/i;
const SECRET_PATH = /(\/integration-by-token\/|\/connect\/link\/)[^/?]+/g;

/** A request URL with secret values replaced, safe to log. */
export function redactUrl(url: string): string {
  const q = url.indexOf("?");
  const path = (q === -1 ? url : url.slice(0, q)).replace(SECRET_PATH, "$1<redacted>");
  if (q === -1) return path;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of [...params.keys()]) if (SECRET_QUERY.test(key)) params.set(key, "<redacted>");
  return `${path}?${params.toString()}`;
}

export function createLogger(level: string, name?: string): Logger {
  return pino({
    level,
    ...(name ? { name } : {}),
    redact: {
      paths: [
        "req.headers.authorization",
        "req.headers.cookie",
        "req.headers['x-upstream-signature']",
        "req.headers['x-kombo-signature']",
        "headers.authorization",
        "*.password",
        "*.refresh_token",
        "*.access_token",
      ],
      censor: "<redacted>",
    },
    serializers: {
      req: (req: { method: string; url: string; id?: string; ip?: string }) => ({
        method: req.method,
        url: redactUrl(req.url),
        remoteAddress: req.ip,
      }),
    },
  });
}
