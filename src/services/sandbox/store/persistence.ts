/**
 * Keeps the sandbox's state under DATA_DIR, so a restart of the embedded stack keeps the upstream
 * in step with Hirebridge's own storage (a written-back stage, a connected integration).
 *
 * Generated data is deterministic (same seed, same rows), so the file holds only what cannot be
 * generated again: each integration's own fields and generation seed, the rows inserted or changed
 * since generation (Collection.changedRows), the write-backs the read model does not show (notes,
 * result links, attachments), the assessment packages and orders (with the attachment bytes the
 * sandbox still holds, within its budget), and the connect links and activation tokens. Its size follows the
 * writes, not the dataset. It is rewritten whole (temp file + rename, so a crash never leaves half
 * a file) shortly after each change and once more on close.
 */
import { readFileSync } from "node:fs";
import { writeFile, rename, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "pino";
import type { AtsModelName } from "../../../contracts/upstream/index.js";
import type { Collection } from "./collection.js";
import type { Dataset } from "./dataset.js";
import type { AssessmentData, OrderAttachment, OrderRow, PackageRow } from "./assessments.js";
import type { AttachmentRow, BaseRow, NoteRow, ResultLinkRow } from "./rows.js";
import type { Integration, IntegrationHead, SandboxStore } from "./sandbox-store.js";

const VERSION = 1;

/** Where the launcher keeps the sandbox's state: beside the embedded database, under DATA_DIR. */
export const sandboxStateDir = (dataDir: string) => `${dataDir}/sandbox`;
export const sandboxStateFile = (dataDir: string) => `${sandboxStateDir(dataDir)}/state.json`;
/** Changes close together are written once. */
const SAVE_DELAY_MS = 50;

const DATA_COLLECTIONS = [
  "jobs",
  "stages",
  "candidates",
  "applications",
  "users",
  "tags",
  "rejectionReasons",
  "offers",
  "interviews",
] as const;
const FIELD_COLLECTIONS = ["fields", "customFields"] as const;

type SavedAttachment = Omit<AttachmentRow, "content"> & { content: string };
type SavedOrder = Omit<OrderRow, "attachments"> & { attachments: (Omit<OrderAttachment, "content"> & { content: string | null })[] };
/** Absent in files written before the assessment channel existed. */
type SavedAssessment = { packages: PackageRow[]; orders: SavedOrder[] };
type SavedIntegration = IntegrationHead & {
  history: Integration["sync"]["history"];
  changedSinceSync: AtsModelName[];
  rows: Record<string, BaseRow[]>;
  notes: [string, NoteRow[]][];
  resultLinks: [string, ResultLinkRow[]][];
  attachments: [string, SavedAttachment[]][];
  assessment?: SavedAssessment;
};
type SavedState = {
  version: number;
  created: number;
  demoIntegrationId: string;
  integrations: SavedIntegration[];
  grants: ReturnType<SandboxStore["grants"]>;
};

function collectionsOf(i: Integration): [string, Collection<BaseRow>][] {
  const data = i.data as unknown as Record<string, Collection<BaseRow>>;
  const fields = i.fields as unknown as Record<string, Collection<BaseRow>>;
  return [
    ...DATA_COLLECTIONS.map((name): [string, Collection<BaseRow>] => [name, data[name]!]),
    ...FIELD_COLLECTIONS.map((name): [string, Collection<BaseRow>] => [`fields.${name}`, fields[name]!]),
  ];
}

function snapshot(store: SandboxStore, demoIntegrationId: string): SavedState {
  const integrations = [...store.integrations.values()].map((i): SavedIntegration => {
    const { tool, data, fields: _fields, assessment, sync, ...own } = i;
    return {
      ...own,
      toolId: tool.id,
      history: sync.history,
      changedSinceSync: [...sync.changedSinceSync],
      rows: Object.fromEntries(
        collectionsOf(i)
          .map(([name, c]) => [name, c.changedRows()] as const)
          .filter(([, rows]) => rows.length > 0),
      ),
      notes: [...data.notes],
      resultLinks: [...data.resultLinks],
      attachments: [...data.attachments].map(([id, list]) => [id, list.map((a) => ({ ...a, content: a.content.toString("base64") }))]),
      assessment: saveAssessment(assessment),
    };
  });
  return { version: VERSION, created: store.createdCount, demoIntegrationId, integrations, grants: store.grants() };
}

function saveAssessment(a: AssessmentData): SavedAssessment {
  return {
    packages: a.packages,
    orders: [...a.orders.values()].map((o) => ({
      ...o,
      attachments: o.attachments.map((f) => ({ ...f, content: f.content?.toString("base64") ?? null })),
    })),
  };
}

function restoreAssessment(a: AssessmentData, saved: SavedAssessment): void {
  a.packages = saved.packages;
  let latest = Math.max(0, ...a.packages.map((p) => p.updatedAt));
  for (const o of [...saved.orders].sort((x, y) => x.seq - y.seq)) {
    const attachments = o.attachments.map((f) => ({ ...f, content: f.content === null ? null : Buffer.from(f.content, "base64") }));
    // Retries of the order webhook do not outlive the process: say so rather than "retrying" forever.
    const waiting = o.receiver.state === "pending" || o.receiver.state === "retrying";
    const receiver = waiting
      ? { ...o.receiver, state: "failed" as const, error: "the sandbox restarted before the receiver answered" }
      : o.receiver;
    a.orders.insert({ ...o, receiver, attachments });
    for (const f of attachments) a.budget.hold(f);
    latest = Math.max(latest, o.changedAt);
  }
  a.settle(latest);
}

/** Puts saved rows back over the regenerated ones (changed) or after them (inserted), in creation order. */
function applyRows(collection: Collection<BaseRow>, rows: BaseRow[]): number {
  let latest = 0;
  for (const row of [...rows].sort((a, b) => a.seq - b.seq)) {
    collection.restore(row);
    latest = Math.max(latest, row.changedAt);
  }
  return latest;
}

function restoreIntegration(store: SandboxStore, saved: SavedIntegration): void {
  const { history, changedSinceSync, rows, notes, resultLinks, attachments, assessment, ...head } = saved;
  const i = store.restoreIntegration(head);
  i.sync.history = history;
  i.sync.changedSinceSync = new Set(changedSinceSync);
  let latest = 0;
  for (const [name, collection] of collectionsOf(i)) {
    const list = rows[name];
    if (list) latest = Math.max(latest, applyRows(collection, list));
  }
  const data: Dataset = i.data;
  data.settle(latest);
  for (const [id, list] of notes) data.notes.set(id, list);
  for (const [id, list] of resultLinks) data.resultLinks.set(id, list);
  for (const [id, list] of attachments)
    data.attachments.set(
      id,
      list.map((a) => ({ ...a, content: Buffer.from(a.content, "base64") })),
    );
  if (assessment) restoreAssessment(i.assessment, assessment);
}

export type SandboxPersistence = {
  /** Schedules a save (changes close together are written once). */
  changed(): void;
  /** Writes now if anything is pending; resolves when the file is on disk. */
  flush(): Promise<void>;
};

/**
 * Loads the saved state into an empty store. Returns the demo integration's id, or null when
 * nothing is saved (the caller then creates the demo integration and saves).
 */
export function loadSandboxState(store: SandboxStore, file: string, logger: Logger): string | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  let saved: SavedState;
  try {
    saved = JSON.parse(text) as SavedState;
  } catch (err) {
    throw new Error(`${file} is not a sandbox state (${(err as Error).message}); \`hirebridge reset\` starts over`, { cause: err });
  }
  if (saved.version !== VERSION)
    throw new Error(`${file}: sandbox state version ${saved.version} is not ${VERSION}; run \`hirebridge reset\``);
  for (const i of saved.integrations) restoreIntegration(store, i);
  store.createdCount = saved.created;
  store.restoreGrants(saved.grants);
  logger.info({ file, integrations: saved.integrations.length }, "sandbox state restored");
  return saved.demoIntegrationId;
}

export function createSandboxPersistence(store: SandboxStore, demoIntegrationId: string, file: string, logger: Logger): SandboxPersistence {
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  const tmp = `${file}.tmp`;
  const write = async () => {
    timer = undefined;
    const text = JSON.stringify(snapshot(store, demoIntegrationId));
    await mkdir(dirname(file), { recursive: true });
    await writeFile(tmp, text);
    await rename(tmp, file);
  };
  const save = () => {
    writing = writing.then(write).catch((err: unknown) => logger.error({ err, file }, "could not save the sandbox state"));
    return writing;
  };
  return {
    changed() {
      timer ??= setTimeout(save, SAVE_DELAY_MS);
    },
    async flush() {
      if (timer) {
        clearTimeout(timer);
        await save();
      }
      await writing;
    },
  };
}
