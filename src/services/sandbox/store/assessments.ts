/**
 * One integration's side of the assessment channel: the packages a vendor published to it and the
 * orders its recruiters placed, each with the receiver's answer and the result written back.
 * Orders live in a Collection, so `GET /assessment/orders` pages them like every other list.
 * Attachment bytes are kept within one byte budget for the whole sandbox (oldest dropped first,
 * their names, types and sizes stay), so a vendor writing large reports cannot grow it unbounded.
 */
import type {
  AssessmentAttribute,
  AssessmentCandidate,
  AssessmentJob,
  AssessmentOrderStatus,
  AssessmentPackageInput,
  AssessmentResultStatus,
} from "../../../contracts/upstream/index.js";
import { Collection } from "./collection.js";
import type { BaseRow } from "./rows.js";

export type PackageRow = AssessmentPackageInput & { updatedAt: number };

/** What became of the order webhook: the receiver's answer, or why there is none yet. */
export type ReceiverState = "pending" | "retrying" | "accepted" | "rejected" | "failed" | "not_sent";

export type OrderAttachment = {
  name: string;
  contentType: string | null;
  /** Bytes; null when a data_url could not be downloaded. */
  size: number | null;
  source: "data" | "data_url";
  dataUrl: string | null;
  /** The bytes, while the budget holds them; null once dropped (or never downloaded). */
  content: Buffer | null;
  /** Why the bytes are missing, for the admin view. */
  problem: string | null;
};

export type OrderResult = {
  status: AssessmentResultStatus;
  resultUrl: string;
  completedAt: string | null;
  score: number | null;
  maxScore: number | null;
  attributes: AssessmentAttribute[];
  remoteFields: Record<string, unknown> | null;
  updatedAt: number;
};

export type OrderRow = BaseRow & {
  packageId: string;
  status: AssessmentOrderStatus;
  inline: boolean;
  /** The sandbox's own application id (the wire shows its remote_id). */
  applicationId: string;
  candidate: AssessmentCandidate;
  applicationRemoteId: string | null;
  job: AssessmentJob;
  createdAt: number;
  receiver: { state: ReceiverState; eventId: string | null; status: number | null; attempts: number; error: string | null };
  rejectionMessage: string | null;
  assessmentUrl: string | null;
  result: OrderResult | null;
  attachments: OrderAttachment[];
};

/** Total attachment bytes the sandbox keeps (all integrations); beyond it the oldest go. */
export const ATTACHMENT_BUDGET_BYTES = 64 * 1024 * 1024;

/** The sandbox-wide budget for attachment bytes: first in, first dropped. */
export class AttachmentBudget {
  readonly #held: OrderAttachment[] = [];
  #bytes = 0;

  constructor(readonly limit = ATTACHMENT_BUDGET_BYTES) {}

  get bytes(): number {
    return this.#bytes;
  }

  /** Takes `attachment`'s bytes into the budget, dropping the oldest held bytes to make room. */
  hold(attachment: OrderAttachment): void {
    const size = attachment.content?.length ?? 0;
    if (!attachment.content) return;
    if (size > this.limit) {
      attachment.content = null;
      attachment.problem = "larger than the sandbox keeps";
      return;
    }
    while (this.#bytes + size > this.limit) this.#drop();
    this.#held.push(attachment);
    this.#bytes += size;
  }

  /** Forgets attachments that are gone with their order (replaced by a newer result). */
  release(attachments: OrderAttachment[]): void {
    for (const a of attachments) {
      const i = this.#held.indexOf(a);
      if (i < 0) continue;
      this.#held.splice(i, 1);
      this.#bytes -= a.content?.length ?? 0;
    }
  }

  #drop(): void {
    const oldest = this.#held.shift();
    if (!oldest) return;
    this.#bytes -= oldest.content?.length ?? 0;
    oldest.content = null;
    oldest.problem = "dropped: the sandbox keeps the newest attachment bytes only";
  }
}

export class AssessmentData {
  /** In the order the vendor last sent them. */
  packages: PackageRow[] = [];
  readonly orders = new Collection<OrderRow>();
  #lastAt = 0;

  constructor(
    readonly budget: AttachmentBudget,
    private readonly clock: () => number = Date.now,
  ) {}

  /** A timestamp later than every change so far (orders' changed_at strictly increases). */
  tick(): number {
    this.#lastAt = Math.max(this.clock(), this.#lastAt + 1);
    return this.#lastAt;
  }

  settle(latest: number): void {
    this.#lastAt = Math.max(this.#lastAt, latest);
  }

  package(id: string): PackageRow | undefined {
    return this.packages.find((p) => p.id === id);
  }

  /** Replaces the list; a package sent unchanged keeps its updated_at. */
  setPackages(list: AssessmentPackageInput[]): void {
    const at = this.tick();
    this.packages = list.map((p) => {
      const before = this.package(p.id);
      const same = before && before.type === p.type && before.name === p.name && before.description === p.description;
      return { id: p.id, type: p.type, name: p.name, description: p.description, updatedAt: same ? before.updatedAt : at };
    });
  }

  /** Records a change to an order (its changed_at moves on). */
  touch(order: OrderRow): void {
    this.orders.touch(order, this.tick());
  }

  /** Puts the result on the order, keeping the new attachments' bytes within the budget. */
  writeResult(order: OrderRow, result: Omit<OrderResult, "updatedAt">, attachments: OrderAttachment[] | undefined): void {
    order.result = { ...result, updatedAt: this.clock() };
    order.status = result.status;
    if (attachments) {
      this.budget.release(order.attachments);
      order.attachments = attachments;
      for (const a of attachments) this.budget.hold(a);
    }
    this.touch(order);
  }
}
