import PDFDocument from "pdfkit";

export type ReportData = {
  candidateName: string;
  positionName: string;
  score: number | null;
  maxScore: number;
  feedback: string | null;
  completedAt: string | null;
};

/** Feedback longer than this is cut: the report is one page (the results page has all of it). */
const FEEDBACK_CHARS = 2500;

/**
 * The one-page PDF report attached to an order's result (what the ATS stores beside the score):
 * candidate, position, score, feedback and date, in pdfkit's built-in Helvetica (no font files,
 * nothing fetched). Built in memory; a report is a few kilobytes.
 */
export function renderReport(data: ReportData): Promise<Buffer> {
  const doc = new PDFDocument({ size: "A4", margin: 56, info: { Title: `Interview report: ${data.candidateName}`, Author: "Hirebridge" } });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on("data", (c: Buffer) => chunks.push(c));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });
  const date = data.completedAt ? data.completedAt.slice(0, 10) : "not completed";
  const feedback = data.feedback
    ? data.feedback.length > FEEDBACK_CHARS
      ? `${data.feedback.slice(0, FEEDBACK_CHARS)}…`
      : data.feedback
    : "—";
  doc.font("Helvetica-Bold").fontSize(20).text("Hirebridge AI interview report");
  doc.moveDown();
  doc.font("Helvetica").fontSize(12);
  doc.text(`Candidate: ${data.candidateName}`);
  doc.text(`Position: ${data.positionName}`);
  doc.text(`Date: ${date}`);
  doc.moveDown();
  doc
    .font("Helvetica-Bold")
    .fontSize(16)
    .text(`Score: ${data.score ?? "—"} / ${data.maxScore}`);
  doc.moveDown();
  doc.font("Helvetica-Bold").fontSize(12).text("Feedback");
  // The height bound keeps the report on one page whatever the feedback's length.
  doc.font("Helvetica").fontSize(11).text(feedback, { height: 520, ellipsis: true });
  doc.end();
  return done;
}
