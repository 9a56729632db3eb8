/**
 * The sandbox's ATS page: what a recruiter would see in the customer's ATS, as plain HTML. Every
 * value is escaped; the two actions (move an application, place an assessment order) call the
 * admin JSON routes from a small script and reload.
 */
import { escapeHtml as esc } from "../../../shared/http/html.js";
import type { OrderRow, PackageRow } from "../store/assessments.js";
import type { Dataset } from "../store/dataset.js";
import type { ApplicationRow, JobRow, StageRow } from "../store/rows.js";
import type { Integration } from "../store/sandbox-store.js";

const STYLE = `body{font-family:system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d1f24}
header{background:#1d2b4f;color:#fff;padding:12px 24px}header a{color:#fff}main{padding:16px 24px}
table{border-collapse:collapse;background:#fff;margin:8px 0 16px}th,td{border:1px solid #d8dbe2;padding:6px 10px;text-align:left;vertical-align:top}
.board{display:flex;gap:12px;overflow-x:auto;align-items:flex-start}.stage{background:#e9ebf1;border-radius:8px;padding:8px;min-width:220px}
.card{background:#fff;border-radius:6px;padding:8px;margin:6px 0;box-shadow:0 1px 2px #0002}.muted{color:#555;font-size:13px}
button,select{font-size:14px;padding:4px 8px}a{color:#1d47b8}code{background:#eef;padding:1px 4px;border-radius:3px}`;

const SCRIPT = `async function call(method, path, body) {
  const res = await fetch(path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const out = document.getElementById("status");
  const json = await res.json().catch(() => ({}));
  if (res.ok) { out.textContent = "Done."; location.reload(); return; }
  out.textContent = "Failed: " + (json.error ? json.error.message : json.message || res.statusText);
}
document.addEventListener("submit", (e) => {
  const f = e.target; e.preventDefault();
  if (f.dataset.action === "move") call("PUT", f.dataset.path, { stage_id: f.elements.stage_id.value });
  if (f.dataset.action === "order") call("POST", f.dataset.path, { application_id: f.elements.application_id.value, package_id: f.elements.package_id.value });
});`;

/** A whole page around `body`. */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,">
<title>${esc(title)} · ATS (Hirebridge sandbox)</title><style>${STYLE}</style></head><body>
<header><a href="/sandbox/ats">ATS</a> · upstream sandbox (local tool, no sign-in)</header>
<main><h1>${esc(title)}</h1><p id="status" role="status"></p>${body}</main><script>${SCRIPT}</script></body></html>`;
}

const integrationLink = (i: Integration) => `/sandbox/ats/${encodeURIComponent(i.id)}`;

export function integrationsTable(integrations: Integration[]): string {
  const rows = integrations
    .map(
      (i) =>
        `<tr><td><a href="${integrationLink(i)}">${esc(i.endUser.organization_name)}</a></td><td>${esc(i.tool.label)}</td><td>${esc(i.category)}</td><td>${esc(i.status)}</td><td><code>${esc(i.id)}</code></td></tr>`,
    )
    .join("");
  return `<table><thead><tr><th>Organisation</th><th>Tool</th><th>Category</th><th>State</th><th>Integration id</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function jobsTable(i: Integration, jobs: { job: JobRow; applications: number }[]): string {
  const rows = jobs
    .map(
      ({ job, applications }) =>
        `<tr><td><a href="${integrationLink(i)}?job=${encodeURIComponent(job.id)}">${esc(job.name)}</a></td><td>${esc(job.status)}</td><td>${applications}</td></tr>`,
    )
    .join("");
  return `<h2>Jobs</h2><table><thead><tr><th>Job</th><th>Status</th><th>Applications</th></tr></thead><tbody>${rows}</tbody></table>`;
}

const candidateName = (data: Dataset, a: ApplicationRow) => {
  const c = data.candidates.get(a.candidateId);
  return c ? `${c.firstName} ${c.lastName}` : a.candidateId;
};

function moveForm(i: Integration, a: ApplicationRow, stages: StageRow[]): string {
  const options = stages
    .map((s) => `<option value="${esc(s.id)}"${s.id === a.stageId ? " selected" : ""}>${esc(s.name)}</option>`)
    .join("");
  const path = `/sandbox/integrations/${encodeURIComponent(i.id)}/applications/${encodeURIComponent(a.id)}/stage`;
  return `<form data-action="move" data-path="${esc(path)}"><label>Stage <select name="stage_id">${options}</select></label> <button type="submit">Move</button></form>`;
}

/** One job's pipeline: a column per stage with its applications. */
export function board(i: Integration, job: JobRow, stages: StageRow[], byStage: Map<string, ApplicationRow[]>): string {
  const columns = stages
    .map((s) => {
      const cards = (byStage.get(s.id) ?? [])
        .map((a) => {
          const notes = i.data.notes.get(a.id)?.length ?? 0;
          const results = i.data.resultLinks.get(a.id)?.length ?? 0;
          return `<div class="card"><a href="${integrationLink(i)}/applications/${encodeURIComponent(a.id)}">${esc(candidateName(i.data, a))}</a>
<div class="muted">${esc(a.outcome ?? "ACTIVE")} · ${notes} note(s) · ${results} result link(s)</div>${moveForm(i, a, stages)}</div>`;
        })
        .join("");
      return `<section class="stage" aria-label="${esc(s.name)}"><h3>${esc(s.name)}</h3>${cards || '<p class="muted">none</p>'}</section>`;
    })
    .join("");
  return `<p><a href="${integrationLink(i)}">All jobs</a></p><h2>${esc(job.name)}</h2><div class="board">${columns}</div>`;
}

/** An application: its candidate, stage, the notes and result links Hirebridge wrote, and its assessment orders. */
export function applicationView(i: Integration, a: ApplicationRow, stages: StageRow[], orders: OrderRow[]): string {
  const notes = (i.data.notes.get(a.id) ?? [])
    .map((n) => `<li><span class="muted">${esc(n.created_at)}</span><pre>${esc(n.content)}</pre></li>`)
    .join("");
  const links = (i.data.resultLinks.get(a.id) ?? [])
    .map((l) => `<li><a href="${esc(l.url)}" rel="noreferrer">${esc(l.label)}</a> <span class="muted">${esc(l.created_at)}</span></li>`)
    .join("");
  const stage = stages.find((s) => s.id === a.stageId);
  return `<p>Stage: <strong>${esc(stage?.name ?? a.stageId)}</strong> · outcome ${esc(a.outcome ?? "ACTIVE")}</p>${moveForm(i, a, stages)}
<h2>Notes</h2>${notes ? `<ul>${notes}</ul>` : '<p class="muted">No notes.</p>'}
<h2>Result links</h2>${links ? `<ul>${links}</ul>` : '<p class="muted">No result links.</p>'}
${orders.length > 0 ? `<h2>Assessment orders</h2>${ordersTable(i, orders)}` : ""}`;
}

export function ordersTable(i: Integration, orders: OrderRow[]): string {
  const rows = orders
    .map((o) => {
      const score =
        o.result?.score !== null && o.result?.score !== undefined
          ? `${o.result.score}${o.result.maxScore !== null ? ` / ${o.result.maxScore}` : ""}`
          : "";
      const report = o.result ? `<a href="${esc(o.result.resultUrl)}" rel="noreferrer">report</a>` : "";
      return `<tr><td><code>${esc(o.id)}</code></td><td>${esc(i.assessment.package(o.packageId)?.name ?? o.packageId)}</td><td>${esc(o.status)}</td><td>${esc(o.result?.status ?? "")}</td><td>${esc(score)}</td><td>${report}</td></tr>`;
    })
    .join("");
  return `<table><thead><tr><th>Order</th><th>Package</th><th>Status</th><th>Result</th><th>Score</th><th>Report</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** An assessment integration: its packages, its orders, and a form to place one (the recruiter's "send assessment"). */
export function assessmentView(i: Integration, packages: PackageRow[], applications: ApplicationRow[], orders: OrderRow[]): string {
  const path = `/sandbox/integrations/${encodeURIComponent(i.id)}/assessment-orders`;
  const apps = applications.map((a) => `<option value="${esc(a.id)}">${esc(candidateName(i.data, a))}</option>`).join("");
  const pkgs = packages.map((p) => `<option value="${esc(p.id)}">${esc(p.name)}</option>`).join("");
  const form =
    packages.length === 0
      ? '<p class="muted">No packages yet: Hirebridge publishes them (PUT /v1/assessment/packages) once the integration is set up.</p>'
      : `<form data-action="order" data-path="${esc(path)}"><label>Application <select name="application_id">${apps}</select></label>
<label>Package <select name="package_id">${pkgs}</select></label> <button type="submit">Place assessment order</button></form>`;
  return `<h2>Place an order</h2>${form}<h2>Orders</h2>${orders.length > 0 ? ordersTable(i, orders) : '<p class="muted">No orders.</p>'}`;
}
