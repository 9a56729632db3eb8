/**
 * The recruiter's results page of an interview ordered from an ATS (the order's `result_url`):
 * the candidate, the position, the score out of 100, the feedback and the transcript. Reached
 * through an unguessable token link, without a bearer token, as the ATS opens it.
 */
import { escapeHtml as esc } from "../../../shared/http/html.js";

export type ResultsPageData = {
  candidateName: string;
  positionName: string;
  status: string;
  score: number | null;
  feedback: string | null;
  transcript: string | null;
  completedAt: Date | null;
};

const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;display:flex;justify-content:center;color:#222}
main{background:#fff;margin:48px 16px;padding:32px;border-radius:12px;max-width:720px;width:100%;box-shadow:0 2px 12px #0001}
h1{font-size:22px;margin:0 0 4px}.meta{color:#666;margin:0 0 16px}.score{font-size:28px;font-weight:600;margin:16px 0}
h2{font-size:16px;margin:24px 0 8px}p{color:#444}pre{white-space:pre-wrap;background:#f7f7f9;padding:12px;border-radius:8px;color:#333}`;

export function resultsPage(data: ResultsPageData): string {
  const date = data.completedAt ? data.completedAt.toISOString().slice(0, 10) : null;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>Interview results: ${esc(data.candidateName)}</title><style>${STYLE}</style></head><body><main>
<h1>${esc(data.candidateName)}</h1>
<p class="meta">${esc(data.positionName)} · Hirebridge AI interview · ${esc(data.status)}${date ? ` · ${date}` : ""}</p>
<p class="score" data-score="${data.score ?? ""}">Score: ${data.score ?? "—"} / 100</p>
<h2>Feedback</h2>
<p>${data.feedback ? esc(data.feedback) : "No feedback yet."}</p>
<h2>Transcript</h2>
${data.transcript ? `<pre>${esc(data.transcript)}</pre>` : "<p>No transcript.</p>"}
<p class="meta">This link is confidential: share it only with the hiring team.</p>
</main></body></html>`;
}

export function resultsNotFoundPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Results not found</title>
<style>${STYLE}</style></head><body><main><h1>No interview results at this link</h1>
<p>Open the link again from the assessment in your ATS, making sure it is complete.</p></main></body></html>`;
}
