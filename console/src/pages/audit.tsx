import type { Hirebridge } from "hirebridge/client";
import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { DataTable, ErrorNote, StateBadge, fmtDate, useLoad } from "../ui.js";

type AuditQuery = NonNullable<Parameters<Hirebridge["audit"]["list"]>[0]>;
type AuditEntry = Awaited<ReturnType<Hirebridge["audit"]["list"]>>["items"][number];
type AuditReport = Awaited<ReturnType<Hirebridge["audit"]["verify"]>>;

const FILTERS = [
  ["action", "Action", "e.g. interview.corrected"],
  ["actor", "Actor", "a user id or client id"],
  ["resource_type", "Resource type", "e.g. candidate"],
  ["resource_id", "Resource id", "an id"],
] as const;

const PAGE = 50;

/** The filters form: text fields and a time range (local time, sent as UTC). */
function Filters(props: { onApply: (q: AuditQuery) => void }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const set = (k: string, v: string) => setValues((s) => ({ ...s, [k]: v }));
  const submit = (e: Event) => {
    e.preventDefault();
    const q: Record<string, string> = {};
    for (const [k, v] of Object.entries(values)) {
      if (!v.trim()) continue;
      q[k] = k === "since" || k === "until" ? new Date(v).toISOString() : v.trim();
    }
    props.onApply(q as AuditQuery);
  };
  return (
    <form onSubmit={submit} class="form-grid" aria-label="Filter the audit log">
      {FILTERS.map(([key, label, hint]) => (
        <Fragment key={key}>
          <label for={`audit-${key}`}>{label}</label>
          <input id={`audit-${key}`} placeholder={hint} value={values[key] ?? ""} onInput={(e) => set(key, e.currentTarget.value)} />
        </Fragment>
      ))}
      <label for="audit-since">Since</label>
      <input id="audit-since" type="datetime-local" value={values["since"] ?? ""} onInput={(e) => set("since", e.currentTarget.value)} />
      <label for="audit-until">Until</label>
      <input id="audit-until" type="datetime-local" value={values["until"] ?? ""} onInput={(e) => set("until", e.currentTarget.value)} />
      <div class="row">
        <button type="submit">Filter</button>
      </div>
    </form>
  );
}

const scoreOf = (e: AuditEntry) => (e.score_before === null && e.score_after === null ? "" : `${e.score_before ?? "–"} → ${e.score_after ?? "–"}`);

function EntryRow(props: { e: AuditEntry }) {
  const { e } = props;
  return (
    <tr data-seq={e.seq}>
      <td>{e.seq}</td>
      <td>{fmtDate(e.occurred_at)}</td>
      <td>
        <code>{e.actor.sub}</code>
        {e.actor.client_id && <div class="muted">{e.actor.client_id}</div>}
      </td>
      <td>
        <code>{e.action}</code>
      </td>
      <td>
        {e.resource_type} <code>{e.resource_ids[0]}</code>
      </td>
      <td>{scoreOf(e)}</td>
      <td class="muted">{e.request_id ?? "–"}</td>
    </tr>
  );
}

/** The chain's verification, on request. */
function Verify(props: { hb: Hirebridge }) {
  const [report, setReport] = useState<AuditReport | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      setReport(await props.hb.audit.verify());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="row">
      <button type="button" class="secondary" disabled={busy} onClick={run}>
        {busy ? "Verifying…" : "Verify the chain"}
      </button>
      {report && (
        <p role="status">
          <StateBadge state={report.ok ? "ok" : "broken"} />{" "}
          {report.ok
            ? `${report.checked} entries hold.`
            : `Broken at entry ${report.broken?.seq}: ${report.broken?.reason}.`}
        </p>
      )}
      <ErrorNote error={error} />
    </div>
  );
}

/**
 * `/audit`: the organisation's audit log (docs/privacy.md, Audit log): who changed what, newest
 * first, filtered, page by page, and the hash chain's verification.
 */
export function AuditPage(props: { hb: Hirebridge }) {
  const { hb } = props;
  const [query, setQuery] = useState<AuditQuery>({});
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const page = useLoad(() => hb.audit.list({ ...query, limit: PAGE, ...(cursor ? { cursor } : {}) }), [JSON.stringify(query), cursor]);
  const apply = (q: AuditQuery) => {
    setQuery(q);
    setCursors([]);
  };
  return (
    <>
      <h1>Audit log</h1>
      <p>Every change made through the API, the console and the CLI, with who made it. Entries hold ids and numbers only.</p>
      <section class="panel" aria-labelledby="audit-filter-title">
        <h2 id="audit-filter-title">Filter</h2>
        <Filters onApply={apply} />
      </section>
      <Verify hb={hb} />
      <ErrorNote error={page.error} />
      {page.value && (
        <>
          <DataTable caption="Audit log entries, newest first" headers={["#", "When", "Actor", "Action", "Resource", "Score", "Request"]}>
            {page.value.items.map((e) => (
              <EntryRow e={e} key={e.seq} />
            ))}
          </DataTable>
          {page.value.items.length === 0 && <p>No entries.</p>}
          <div class="row">
            {cursors.length > 0 && (
              <button type="button" class="secondary" onClick={() => setCursors((c) => c.slice(0, -1))}>
                Newer
              </button>
            )}
            {page.value.next_cursor && (
              <button type="button" class="secondary" onClick={() => setCursors((c) => [...c, page.value!.next_cursor!])}>
                Older
              </button>
            )}
          </div>
        </>
      )}
    </>
  );
}
