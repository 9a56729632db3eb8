/**
 * The page a candidate's interview link opens: which position it is for, where the interview
 * stands, and what to expect. It shows nothing the candidate did not give or would not see in the
 * job ad: no score, feedback, transcript, nor anything about other candidates.
 */
import type { InterviewStatus } from "../../../contracts/recruiting/interviews.js";
import { escapeHtml } from "../../../shared/http/html.js";

export type InterviewPageData = {
  candidateName: string;
  status: InterviewStatus;
  position: {
    name: string;
    department: string | null;
    location: string | null;
    roleDescription: string | null;
    acceptedLanguages: string[];
  };
};

const esc = escapeHtml;

/** Where the interview stands, in the candidate's terms. */
const STATE: Record<InterviewStatus, { label: string; text: string }> = {
  not_started: { label: "Ready when you are", text: "Your interview has not started yet. You can take it whenever it suits you." },
  errored: {
    label: "Interrupted",
    text: "Your last attempt was interrupted by a technical problem. You can start again; nothing is held against you.",
  },
  cancelled: {
    label: "Cancelled",
    text: "This interview was cancelled. If you think this is a mistake, reply to the email that brought you here.",
  },
  completed: { label: "Completed", text: "Thank you: your interview is complete and is being reviewed. The hiring team will contact you." },
  graded: {
    label: "Reviewed",
    text: "Thank you: your interview has been reviewed and the hiring team has the results. They will contact you about next steps.",
  },
};

const LANGUAGE_NAMES = new Intl.DisplayNames(["en"], { type: "language" });
const languageName = (code: string) => {
  try {
    return LANGUAGE_NAMES.of(code) ?? code;
  } catch {
    return code;
  }
};

const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f5f7;margin:0;display:flex;justify-content:center;color:#222}
main{background:#fff;margin:48px 16px;padding:32px;border-radius:12px;max-width:560px;width:100%;box-shadow:0 2px 12px #0001}
h1{font-size:22px;margin:0 0 4px}.meta{color:#666;margin:0 0 16px}.state{border-radius:8px;padding:12px 14px;background:#eef3ff;margin:16px 0}
.state strong{display:block;margin-bottom:4px}h2{font-size:16px;margin:24px 0 8px}li{margin:4px 0;color:#444}p{color:#444}`;

export function interviewPage(data: InterviewPageData): string {
  const { position } = data;
  const state = STATE[data.status];
  const meta = [position.department, position.location]
    .filter((v): v is string => !!v)
    .map(esc)
    .join(" · ");
  const languages = position.acceptedLanguages.length ? position.acceptedLanguages.map(languageName).map(esc).join(", ") : null;
  const firstName = data.candidateName.trim().split(/\s+/)[0] ?? "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>Your interview: ${esc(position.name)}</title><style>${STYLE}</style></head><body><main>
<p>Hello ${esc(firstName)},</p>
<h1>${esc(position.name)}</h1>
${meta ? `<p class="meta">${meta}</p>` : ""}
<div class="state" role="status" data-status="${data.status}"><strong>${esc(state.label)}</strong>${esc(state.text)}</div>
${position.roleDescription ? `<h2>The role</h2><p>${esc(position.roleDescription)}</p>` : ""}
<h2>What to expect</h2>
<ul>
<li>A conversation with an AI interviewer about your experience and the role, about 20 to 30 minutes.</li>
<li>${languages ? `You can answer in ${languages}.` : "You can answer in the language of the job ad."}</li>
<li>Use a quiet place, a microphone and a recent browser; you can take it at any time of day.</li>
<li>The hiring team reviews the interview and contacts you about next steps.</li>
</ul>
<p class="meta">This link is personal: please do not share it.</p>
</main></body></html>`;
}

/** What a candidate's browser shows for a link that leads nowhere (mistyped, cut short, or withdrawn). */
export function interviewNotFoundPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>Interview link not found</title><style>${STYLE}</style></head><body><main>
<h1>This interview link does not work</h1>
<div class="state" role="alert"><strong>No interview at this link.</strong>It may have been cut short when it was copied, or withdrawn.</div>
<p>Open the link again from the message you received, making sure it is complete. If it still does not work, reply to that message and ask the hiring team for a new link.</p>
</main></body></html>`;
}
