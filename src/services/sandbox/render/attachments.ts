/**
 * Application attachments (§4.10). Every seeded application has a CV, derived from the
 * application (not stored: 100,000 PDFs would not be memory-sane) as a small but valid one-page
 * PDF; attachments sent with create-application are stored as given. Both are downloadable at
 * their `data_url` from the sandbox itself.
 */
import type { Attachment } from "../../../contracts/upstream/index.js";
import { Random } from "../data/random.js";
import type { Dataset } from "../store/dataset.js";
import type { ApplicationRow, AttachmentRow } from "../store/rows.js";

export function attachmentsOf(data: Dataset, app: ApplicationRow): AttachmentRow[] {
  const stored = data.attachments.get(app.id);
  if (stored) return stored;
  const candidate = data.candidates.get(app.candidateId);
  const job = data.jobs.get(app.jobId);
  const name = candidate ? `${candidate.firstName} ${candidate.lastName}` : "Candidate";
  const lines = [
    `Curriculum Vitae: ${name}`,
    candidate ? `Email: ${candidate.email}` : "",
    candidate?.title ? `Current role: ${candidate.title}${candidate.company ? ` at ${candidate.company}` : ""}` : "",
    candidate ? `Location: ${candidate.city}, ${candidate.country}` : "",
    job ? `Applying for: ${job.name} (${job.department})` : "",
  ].filter(Boolean);
  return [
    {
      id: new Random(`${app.id}:cv`).id(),
      remoteId: `${app.remoteId}-cv`,
      type: "CV",
      fileName: `${name.replace(/[^A-Za-z0-9]+/g, "_")}_CV.pdf`,
      contentType: "application/pdf",
      content: onePagePdf(lines),
      createdAt: app.createdAt,
    },
  ];
}

export function renderAttachment(a: AttachmentRow, url: string): Attachment {
  const at = new Date(a.createdAt).toISOString();
  return {
    type: a.type,
    id: a.id,
    remote_id: a.remoteId,
    data_url: url,
    file_name: a.fileName,
    content_type: a.contentType,
    remote_created_at: at,
    remote_updated_at: at,
  };
}

/** A minimal valid PDF with one page of Helvetica text lines. */
export function onePagePdf(lines: string[]): Buffer {
  const esc = (s: string) => s.replace(/[^\x20-\x7e]/g, "?").replace(/([()\\])/g, "\\$1");
  const text = lines.map((l, i) => `BT /F1 ${i === 0 ? 16 : 11} Tf 56 ${780 - i * 22} Td (${esc(l)}) Tj ET`).join("\n");
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${Buffer.byteLength(text)} >>\nstream\n${text}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out);
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}
