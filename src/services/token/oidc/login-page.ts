import { createHash } from "node:crypto";

/**
 * The browser sign-in's HTML: Keycloak's login form (fields `username` and `password`, posted to
 * the form's own `action`) and its error page. No script at all, and the one stylesheet is inline
 * but pinned by its hash in the Content-Security-Policy, so nothing else can run or load.
 */
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1d2330;margin:0;display:flex;justify-content:center}
main{background:#fff;margin:48px 16px;padding:32px;border-radius:12px;max-width:400px;width:100%;box-shadow:0 2px 12px #0002}
h1{font-size:22px;margin:0 0 4px}p{margin:0 0 16px;color:#3b4252}label{display:block;font-weight:600;margin:14px 0 4px}
input{box-sizing:border-box;width:100%;padding:10px;border:1px solid #767d8c;border-radius:6px;font-size:16px}
input:focus,button:focus{outline:3px solid #2450d8;outline-offset:2px}
button{margin-top:20px;width:100%;padding:12px;border:0;border-radius:6px;background:#2450d8;color:#fff;font-size:16px;cursor:pointer}
.error{background:#fdecec;color:#8a1f1f;border:1px solid #e6b3b3;padding:10px;border-radius:6px}`;

const STYLE_HASH = `'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`;

/**
 * The page's policy: only its own stylesheet; the form may post to this service and, as the answer
 * is a redirect to the client, to the client's origin (browsers apply form-action to redirects).
 */
export function loginPageCsp(redirectOrigin?: string): string {
  return [
    "default-src 'none'",
    `style-src ${STYLE_HASH}`,
    `form-action 'self'${redirectOrigin ? ` ${redirectOrigin}` : ""}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;

export function loginPage(input: { realm: string; action: string; authRequest: string; username?: string; error?: string }): string {
  const error = input.error ? `<p class="error" role="alert" id="login-error">${esc(input.error)}</p>` : "";
  const describedBy = input.error ? ` aria-describedby="login-error"` : "";
  return page(
    `Sign in to ${input.realm}`,
    `<h1>Sign in</h1><p>to <strong>${esc(input.realm)}</strong></p>${error}
<form id="kc-form-login" method="post" action="${esc(input.action)}">
<input type="hidden" name="auth_request" value="${esc(input.authRequest)}">
<label for="username">Username or email</label>
<input id="username" name="username" type="text" autocomplete="username" required autofocus value="${esc(input.username ?? "")}"${describedBy}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${describedBy}>
<button type="submit" id="kc-login">Sign in</button>
</form>`,
  );
}

export function errorPage(message: string): string {
  return page("Sign-in error", `<h1>We are sorry...</h1><p role="alert">${esc(message)}</p>`);
}
