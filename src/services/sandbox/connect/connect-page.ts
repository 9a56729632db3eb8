/**
 * The connect page a create-link/relink link opens: the person picks a tool and confirms, as in
 * the upstream's hosted flow. Inside an iframe (@kombo-api/connect's showKomboConnect) it posts
 * `{type:"success",data:{activation_token}}` or `{type:"close"}` to the parent window, and
 * `{type:"resize",height}` whenever its height changes so the frame fits it; opened directly it
 * shows the activation token.
 */
import type { ToolEntry } from "../data/tools.js";
import { escapeHtml } from "../../../shared/http/html.js";
import type { LinkGrant } from "../store/sandbox-store.js";

const esc = escapeHtml;

const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;display:flex;justify-content:center}
main{background:#fff;margin:48px 16px;padding:32px;border-radius:12px;max-width:520px;width:100%;box-shadow:0 2px 12px #0001}
h1{font-size:20px;margin:0 0 8px}p{color:#444}.tools{display:grid;grid-template-columns:1fr 1fr;gap:8px;margin:16px 0}
label.tool{border:1px solid #ccd;border-radius:8px;padding:10px;display:flex;gap:8px;align-items:center;cursor:pointer}
button{padding:10px 16px;border-radius:8px;border:0;cursor:pointer;font-size:15px}.primary{background:#2450d8;color:#fff}
.secondary{background:#e8e9ee}.danger{background:none;color:#a33;text-decoration:underline}.row{display:flex;gap:8px;flex-wrap:wrap}
code{word-break:break-all;background:#f0f0f4;padding:2px 4px;border-radius:4px}
html.embedded main{margin:16px;box-shadow:none;border:1px solid #dde}`;

export function connectPage(token: string, grant: LinkGrant, tools: readonly ToolEntry[]): string {
  const title = grant.kind === "relink" ? "Reconnect your integration" : `Connect your ${grant.category} system`;
  const choices = tools
    .map((t, i) => {
      const checked = grant.toolId ? t.id === grant.toolId : i === 0;
      return `<label class="tool"><input type="radio" name="tool" value="${esc(t.id)}"${checked ? " checked" : ""}${grant.toolId && !checked ? " disabled" : ""}> ${esc(t.label)}</label>`;
    })
    .join("");
  return `<!doctype html><html lang="${esc(grant.language)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · Hirebridge sandbox</title><style>${STYLE}</style></head><body><main>
<h1>${esc(title)}</h1>
<p>For <strong>${esc(grant.endUser.organization_name)}</strong>${grant.endUser.creator_email ? ` (${esc(grant.endUser.creator_email)})` : ""}.
This is the upstream sandbox: no credentials are needed; the integration gets generated demo data.</p>
<form id="f"><div class="tools">${choices || "<p>No tools in this category.</p>"}</div>
<div class="row"><button class="primary" type="submit">Connect</button><button class="secondary" type="button" id="cancel">Cancel</button>
<button class="danger" type="button" id="fail">Simulate wrong credentials</button></div></form>
<p id="out" role="status"></p>
<script>
const base = ${JSON.stringify(`/connect/link/${token}`)};
const out = document.getElementById("out");
const post = (msg) => { if (window.parent !== window) window.parent.postMessage(msg, "*"); };
// In a frame: compact, and the page's height posted on every change so the frame fits its content.
if (window.parent !== window) {
  document.documentElement.classList.add("embedded");
  new ResizeObserver(() => post({ type: "resize", height: Math.ceil(document.body.getBoundingClientRect().height) })).observe(document.body);
}
async function call(path, body) {
  const res = await fetch(base + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(json.error ? json.error.message : res.statusText);
  return json;
}
document.getElementById("f").addEventListener("submit", async (e) => {
  e.preventDefault();
  const picked = document.querySelector("input[name=tool]:checked");
  try {
    const r = await call("/confirm", { tool_id: picked ? picked.value : null });
    out.innerHTML = "Connected: <code></code><br>Activation token: <code></code>";
    out.querySelectorAll("code")[0].textContent = r.integration_id;
    out.querySelectorAll("code")[1].textContent = r.activation_token;
    document.getElementById("f").remove();
    post({ type: "success", data: { activation_token: r.activation_token } });
  } catch (err) { out.textContent = "Could not connect: " + err.message; }
});
document.getElementById("cancel").addEventListener("click", () => { out.textContent = "Cancelled."; post({ type: "close" }); });
document.getElementById("fail").addEventListener("click", async () => {
  const picked = document.querySelector("input[name=tool]:checked");
  try { await call("/fail", { tool_id: picked ? picked.value : null }); out.textContent = "The credentials were rejected (simulated). Try again."; }
  catch (err) { out.textContent = err.message; }
});
</script></main></body></html>`;
}

export function linkProblemPage(problem: "unknown" | "expired" | "used"): string {
  const text = {
    unknown: "This link is not valid.",
    expired: "This link has expired. Ask for a new one.",
    used: "This link was already used.",
  }[problem];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Link problem · Hirebridge sandbox</title><style>${STYLE}</style></head><body><main><h1>${esc(text)}</h1></main></body></html>`;
}
