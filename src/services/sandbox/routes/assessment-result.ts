/**
 * `PUT /assessment/orders/{id}/result` beyond its schema: the status rule (it can change only
 * while the order is OPEN), the numbers that must agree, and the attachments' bytes: base64 `data`
 * decoded, a `data_url` downloaded as the upstream would (bounded in size and time; a download
 * that fails keeps the attachment's name and answers a warning instead of failing the write).
 */
import { request } from "undici";
import type { UpdateAssessmentResultBody, UpstreamWarning } from "../../../contracts/upstream/index.js";
import { SandboxError, inputInvalid } from "../errors.js";
import type { OrderAttachment, OrderResult, OrderRow } from "../store/assessments.js";

/** One attachment's bytes at most (a report PDF is far smaller). */
export const ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
/** The request may carry that many base64 bytes in its attachments, and some. */
export const RESULT_BODY_LIMIT = 32 * 1024 * 1024;
const DOWNLOAD_TIMEOUT_MS = 10_000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Refuses what the upstream refuses; the schema checked the types already. */
export function checkResult(order: OrderRow, body: UpdateAssessmentResultBody): void {
  if (order.status !== "OPEN" && body.status !== order.status) {
    throw new SandboxError(400, "PLATFORM.INPUT_INVALID", `The order is ${order.status}; its status can change only while it is OPEN.`, {
      title: "Order closed",
    });
  }
  const { score, max_score } = body;
  if (score !== undefined && score < 0) throw inputInvalid("body.score: must be >= 0");
  if (max_score !== undefined && max_score <= 0) throw inputInvalid("body.max_score: must be > 0");
  if (score !== undefined && max_score !== undefined && score > max_score) throw inputInvalid("body.score: must not exceed max_score");
  (body.attributes ?? []).forEach((a, i) => {
    if (a.type === "SUB_RESULT" && (a.score.max <= 0 || a.score.value < 0 || a.score.value > a.score.max)) {
      throw inputInvalid(`body.attributes.${i}.score: value must lie between 0 and max, and max must be > 0`);
    }
  });
  (body.attachments ?? []).forEach((a, i) => {
    if ((a.data === undefined) === (a.data_url === undefined))
      throw inputInvalid(`body.attachments.${i}: give exactly one of data and data_url`);
    if (a.data !== undefined && (a.data.length % 4 !== 0 || !BASE64.test(a.data))) {
      throw inputInvalid(`body.attachments.${i}.data: must be base64`);
    }
    if (a.data !== undefined && (a.data.length / 4) * 3 > ATTACHMENT_MAX_BYTES + 2) {
      throw inputInvalid(`body.attachments.${i}.data: at most ${ATTACHMENT_MAX_BYTES} bytes`);
    }
  });
}

export function resultOf(body: UpdateAssessmentResultBody): Omit<OrderResult, "updatedAt"> {
  return {
    status: body.status,
    resultUrl: body.result_url,
    completedAt: body.completed_at ?? null,
    score: body.score ?? null,
    maxScore: body.max_score ?? null,
    attributes: body.attributes ?? [],
    remoteFields: body.remote_fields ?? null,
  };
}

/** The attachments with their bytes; a failed download becomes a warning. Undefined: none were sent. */
export async function attachmentsOf(body: UpdateAssessmentResultBody, warnings: UpstreamWarning[]): Promise<OrderAttachment[] | undefined> {
  if (!body.attachments) return undefined;
  return Promise.all(
    body.attachments.map(async (a, i): Promise<OrderAttachment> => {
      const contentType = a.content_type ?? null;
      if (a.data !== undefined) {
        const content = Buffer.from(a.data, "base64");
        return { name: a.name, contentType, size: content.length, source: "data", dataUrl: null, content, problem: null };
      }
      const url = a.data_url!;
      try {
        const content = await download(url);
        return { name: a.name, contentType, size: content.length, source: "data_url", dataUrl: url, content, problem: null };
      } catch (err) {
        const problem = `could not download data_url: ${(err as Error).message}`;
        warnings.push({ message: `attachments.${i} (${a.name}): ${problem}` });
        return { name: a.name, contentType, size: null, source: "data_url", dataUrl: url, content: null, problem };
      }
    }),
  );
}

async function download(url: string): Promise<Buffer> {
  const res = await request(url, { method: "GET", headersTimeout: DOWNLOAD_TIMEOUT_MS, bodyTimeout: DOWNLOAD_TIMEOUT_MS });
  if (res.statusCode < 200 || res.statusCode >= 300) {
    await res.body.dump();
    throw new Error(`answered ${res.statusCode}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Buffer).length;
    if (size > ATTACHMENT_MAX_BYTES) {
      res.body.destroy();
      throw new Error(`larger than ${ATTACHMENT_MAX_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
