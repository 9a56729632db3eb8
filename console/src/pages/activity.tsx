import type { ActivityItem, ActivityQuery, Hirebridge } from "hirebridge/client";
import { useState } from "preact/hooks";
import { DataTable, ErrorNote, StateBadge, fmtDate, useLoad } from "../ui.js";

const KINDS = [
  ["", "Everything"],
  ["event", "Webhook events"],
  ["sync_run", "Sync runs"],
  ["write_back", "Write-backs"],
  ["upstream_call", "Failed upstream calls"],
  ["assessment_order", "Assessment orders"],
] as const;
const STATUSES = ["", "failed", "done", "succeeded", "processed", "pending", "queued", "running", "cancelled", "ignored", "paused", "accepted", "rejected"];
const KIND_LABEL: Record<ActivityItem["kind"], string> = {
  event: "event",
  sync_run: "sync run",
  write_back: "write-back",
  upstream_call: "upstream call",
  assessment_order: "assessment order",
};

/** Which kinds and states to show (the Activity tab's filters). */
function Filters(props: { kind: string; status: string; onKind: (v: string) => void; onStatus: (v: string) => void }) {
  const pick = (set: (v: string) => void) => (e: Event) => set((e.currentTarget as HTMLSelectElement).value);
  return (
    <div class="row filters">
      <label for="activity-kind">Show</label>
      <select id="activity-kind" value={props.kind} onChange={pick(props.onKind)}>
        {KINDS.map(([v, label]) => (
          <option value={v} key={v}>
            {label}
          </option>
        ))}
      </select>
      <label for="activity-status">Status</label>
      <select id="activity-status" value={props.status} onChange={pick(props.onStatus)}>
        {STATUSES.map((s) => (
          <option value={s} key={s}>
            {s || "any"}
          </option>
        ))}
      </select>
    </div>
  );
}

/** One entry: when and what, named; its status, error and tries; Retry for a failed write-back. */
function ActivityRow(props: { item: ActivityItem; onRetry: (item: ActivityItem) => void }) {
  const i = props.item;
  return (
    <tr data-kind={i.kind} data-status={i.status} data-item={i.id}>
      <td>
        {fmtDate(i.at)}
        <br />
        <span class="muted">{KIND_LABEL[i.kind]}</span>
      </td>
      <td>
        {i.summary}
        {i.count > 1 && (
          <span class="badge" title={`${i.count} identical events in a row, folded into one row`}>
            {" "}×{i.count}
          </span>
        )}
      </td>
      <td>
        <StateBadge state={i.status} />
      </td>
      <td class="error-text">{i.error ?? ""}</td>
      <td>{i.attempts || ""}</td>
      <td class="actions">
        {i.retryable && (
          <button type="button" class="secondary small" onClick={() => props.onRetry(i)} aria-label={`Retry the ${i.summary}`}>
            Retry
          </button>
        )}
      </td>
    </tr>
  );
}

/** Newer and older pages: `pages` holds the cursors walked so far. */
function Pager(props: { pages: string[]; next: string | null | undefined; onPages: (pages: string[]) => void }) {
  const { pages, next } = props;
  if (pages.length === 0 && !next) return null;
  return (
    <div class="row pager">
      <button type="button" class="secondary small" disabled={pages.length === 0} onClick={() => props.onPages(pages.slice(0, -1))}>
        Newer
      </button>
      <button type="button" class="secondary small" disabled={!next} onClick={() => next && props.onPages([...pages, next])}>
        Older
      </button>
    </div>
  );
}

/**
 * An integration's trail (GET /integrations/{id}/activity), newest first, a page at a time: the
 * whole of it with filters (the Activity tab), or one candidate's (`candidateId`, on the
 * candidate's row). A failed write-back or event has a Retry button.
 */
export function ActivityTable(props: { hb: Hirebridge; integrationId: string; candidateId?: string; caption?: string }) {
  const { hb, integrationId, candidateId } = props;
  const [kind, setKind] = useState("");
  const [status, setStatus] = useState("");
  // Cursors of the pages before this one (to go back), and this page's.
  const [pages, setPages] = useState<string[]>([]);
  const cursor = pages.at(-1);
  const [note, setNote] = useState("");
  const [error, setError] = useState<unknown>(null);
  const query: ActivityQuery = { limit: candidateId ? 10 : 25 };
  if (kind) query.kind = kind;
  if (status) query.status = status;
  if (candidateId) query.candidate_id = candidateId;
  if (cursor) query.cursor = cursor;
  // The newest page follows what happens; older pages hold still.
  const page = useLoad(() => hb.activity.list(integrationId, query), [integrationId, candidateId, kind, status, cursor], cursor ? null : 4000);
  // A failed write-back is retried; a failed event is re-driven (its work runs again).
  const retry = async (item: ActivityItem) => {
    setError(null);
    try {
      if (item.kind === "event") {
        const event = await hb.webhookEvents.redrive(item.id);
        setNote(`Event ${event.type} re-driven: ${event.status}.`);
      } else {
        const wb = await hb.activity.retryWriteBack(integrationId, item.id);
        setNote(`Write-back for ${wb.candidate_name ?? "the candidate"} retried: ${wb.state}.`);
      }
      page.reload();
    } catch (err) {
      setError(err);
    }
  };
  const refilter = (set: (v: string) => void) => (v: string) => {
    set(v);
    setPages([]);
  };
  const items = page.value?.items ?? [];
  return (
    <div class="activity">
      {!candidateId && <Filters kind={kind} status={status} onKind={refilter(setKind)} onStatus={refilter(setStatus)} />}
      <p role="status" class="status">
        {note}
      </p>
      <ErrorNote error={error} />
      <ErrorNote error={page.error} />
      {page.value && items.length === 0 && (
        <p>
          Nothing {cursor ? "older" : "yet"}
          {kind || status ? " that matches" : ""}.
        </p>
      )}
      {items.length > 0 && (
        <DataTable caption={props.caption ?? "Activity, newest first"} headers={["When", "What", "Status", "Error", "Tries", ""]}>
          {items.map((i) => (
            <ActivityRow item={i} onRetry={(item) => void retry(item)} key={`${i.kind}:${i.id}`} />
          ))}
        </DataTable>
      )}
      <Pager pages={pages} next={page.value?.next_cursor} onPages={setPages} />
    </div>
  );
}
