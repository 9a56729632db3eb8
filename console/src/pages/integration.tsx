import type { Hirebridge, IntegrationSummary, SyncRun, SyncRunEntry, WriteBack } from "hirebridge/client";
import { useState } from "preact/hooks";
import { BarChart, DataTable, ErrorNote, HealthNote, Link, StateBadge, fmtDate, fmtMs, useLoad } from "../ui.js";
import { ActivityTable } from "./activity.js";
import { AssessmentPanel } from "./assessment.js";

const LIVE = new Set(["queued", "running"]);
const TYPES = [
  { type: "JOBS", label: "Sync jobs" },
  { type: "APPLICATIONS", label: "Sync applications" },
  { type: undefined, label: "Sync both" },
] as const;

function RunProgress(props: { run: SyncRun }) {
  const r = props.run;
  if (!LIVE.has(r.state)) return <StateBadge state={r.state} />;
  return (
    <span class="live">
      <StateBadge state={r.state} />
      <progress aria-label={`${r.model} sync ${r.state}: ${r.pages} pages so far`} />
      <span>{r.pages} pages</span>
    </span>
  );
}

const TABS = [
  ["runs", "Sync runs"],
  ["write-backs", "Write-backs"],
  ["activity", "Activity"],
  ["assessment", "Assessment orders"],
] as const;
type Tab = (typeof TABS)[number][0];

/** The tab a deep link names (`?tab=activity`); null when it names none. */
const tabOf = (search: string): Tab | null => {
  const asked = new URLSearchParams(search).get("tab");
  return TABS.some(([t]) => t === asked) ? (asked as Tab) : null;
};

/** The integration's name, health and the name's editor. */
function IntegrationHead(props: { hb: Hirebridge; id: string; summary: IntegrationSummary | undefined; onRenamed: () => void }) {
  const { hb, id, summary } = props;
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState("");
  const [error, setError] = useState<unknown>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await hb.integrations.update(id, { display_name: name.trim() === "" ? null : name });
      setEditing(false);
      props.onRenamed();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <h1>{summary?.display_name ?? id}</h1>
      <p>
        <code>{id}</code> {summary && <span class="muted">{summary.tool}</span>} {summary && <HealthNote health={summary.health} />}
      </p>
      {!editing && (
        <p>
          <button
            type="button"
            class="secondary small"
            onClick={() => {
              setName(summary?.display_name ?? "");
              setEditing(true);
            }}
          >
            Rename
          </button>
        </p>
      )}
      {editing && (
        <form onSubmit={save} class="row">
          <label for="display-name">Name</label>
          <input id="display-name" value={name} maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit" class="small">
            Save the name
          </button>
          <button type="button" class="secondary small" onClick={() => setEditing(false)}>
            Cancel
          </button>
          <span class="muted">Empty: the organisation's name from the ATS ({summary?.organization_name ?? "none"}).</span>
        </form>
      )}
      <ErrorNote error={error} />
    </>
  );
}

/** The integration's history, one tab at a time. */
function Tabs(props: { tab: Tab; onTab: (t: Tab) => void }) {
  return (
    <div class="tabs" role="tablist" aria-label="The integration's history">
      {TABS.map(([t, label]) => (
        <button type="button" role="tab" id={`tab-${t}`} aria-selected={props.tab === t} aria-controls={`panel-${t}`} key={t} onClick={() => props.onTab(t)}>
          {label}
        </button>
      ))}
    </div>
  );
}

/** The quiet runs folded into a run: how many, and when the last began. */
const quietCell = (r: SyncRunEntry) => (r.quiet_runs ? `${r.quiet_runs.count} (last ${fmtDate(r.quiet_runs.last_at)})` : "");

/** Sync runs, newest first, with charts of the recent ones; quiet runs folded into the run before them. */
function RunsPanel(props: { runs: SyncRunEntry[]; loaded: boolean }) {
  const { runs } = props;
  const recent = [...runs].reverse().slice(-12);
  return (
    <section aria-labelledby="runs-title" role="tabpanel" id="panel-runs">
        <h2 id="runs-title">Sync runs</h2>
        {props.loaded && runs.length === 0 && <p>No sync run yet.</p>}
        {runs.length > 0 && (
          <>
            <div class="charts">
              <BarChart title="Records synced per run (created + updated), oldest first" bars={recent.map((r, i) => ({ label: `${r.model === "jobs" ? "J" : "A"}${i + 1}`, value: r.created + r.updated }))} />
              <BarChart
                title="Duration per run, oldest first"
                // A run still under way has no duration yet: it gets no bar rather than a 0.
                bars={recent.flatMap((r, i) =>
                  r.duration_ms === null ? [] : [{ label: `${r.model === "jobs" ? "J" : "A"}${i + 1}`, value: r.duration_ms, tone: "alt" }],
                )}
                // Milliseconds under a second (a quick run is not 0), seconds above: as the table reads.
                format={fmtMs}
              />
            </div>
            <p class="muted">Incremental runs that changed nothing (the ATS's echo of a write-back, say) are counted under “Quiet runs after” on the run before them.</p>
            <DataTable caption="Sync runs, newest first" headers={["Model", "Type", "Trigger", "State", "Created", "Updated", "Unlinked", "Skipped", "Failed", "Duration", "Started", "Quiet runs after", "Error"]}>
                  {runs.map((r) => (
                    <tr key={r.id} data-run-state={r.state} data-model={r.model}>
                      <td>{r.model}</td>
                      <td>{r.type}</td>
                      <td>{r.trigger}</td>
                      <td>
                        <RunProgress run={r} />
                      </td>
                      <td>{r.created}</td>
                      <td>{r.updated}</td>
                      <td>{r.unlinked}</td>
                      <td>{r.skipped}</td>
                      <td>{r.failed}</td>
                      <td>{fmtMs(r.duration_ms)}</td>
                      <td>{fmtDate(r.started_at)}</td>
                      <td data-quiet-runs={r.quiet_runs?.count ?? 0}>{quietCell(r)}</td>
                      <td class="error-text">{r.last_error ?? ""}</td>
                    </tr>
                  ))}
                </DataTable>
          </>
        )}
      </section>
  );
}

/** Interview results written back to the ATS, by candidate, position and stage name. */
function WriteBacksPanel(props: { writeBacks: WriteBack[] | undefined }) {
  const writeBacks = props.writeBacks;
  return (
    <section aria-labelledby="wb-title" role="tabpanel" id="panel-write-backs">
        <h2 id="wb-title">Write-backs to the ATS</h2>
        {writeBacks && writeBacks.length === 0 && <p>No interview result written back yet.</p>}
        {writeBacks && writeBacks.length > 0 && (
          <DataTable caption="Interview results written back, newest first" headers={["Candidate", "Position", "Outcome", "Target stage", "State", "Stage moved", "Result link", "Note", "Attempts", "Error"]}>
                {writeBacks.map((w) => (
                  <tr key={w.id} data-write-back-state={w.state} data-application={w.application_id}>
                    <td>{w.candidate_name ?? <code>{w.candidate_id}</code>}</td>
                    <td>{w.position_name ? <Link href={`/positions/${w.position_id}`}>{w.position_name}</Link> : "–"}</td>
                    <td>{w.outcome.replace("_", " ")}</td>
                    <td>{w.target_stage_name ?? w.target_stage ?? "–"}</td>
                    <td>
                      <StateBadge state={w.state} />
                    </td>
                    <td>{fmtDate(w.stage_moved_at)}</td>
                    <td>{fmtDate(w.link_added_at)}</td>
                    <td>{fmtDate(w.note_added_at)}</td>
                    <td>{w.attempts}</td>
                    <td class="error-text">{w.last_error ?? ""}</td>
                  </tr>
                ))}
              </DataTable>
        )}
      </section>
  );
}

export function IntegrationPage(props: { hb: Hirebridge; id: string }) {
  const { hb, id } = props;
  const summary = useLoad(() => hb.integrations.summary(id), [id], 10000);
  const [asked, setTab] = useState<Tab | null>(() => tabOf(location.search));
  // An assessment integration has no sync to show: its orders come first.
  const tab = asked ?? (summary.value?.category === "ASSESSMENT" ? "assessment" : "runs");
  const show = (t: Tab) => {
    setTab(t);
    history.replaceState(null, "", t === "runs" ? location.pathname : `${location.pathname}?tab=${t}`);
  };
  const [pollFast, setPollFast] = useState(true);
  const syncs = useLoad(
    async () => {
      const answer = await hb.sync.runs(id, { limit: 20 });
      setPollFast(answer.items.some((r) => LIVE.has(r.state)) || answer.write_backs.some((w) => w.state === "pending"));
      return answer;
    },
    [id],
    pollFast ? 1500 : 10000,
  );
  const [status, setStatus] = useState("");
  const [error, setError] = useState<unknown>(null);
  const start = async (type: "JOBS" | "APPLICATIONS" | undefined, label: string) => {
    setError(null);
    try {
      const answer = await hb.sync.start(id, type ? { type } : {});
      setStatus(`${label}: queued (run ${answer.message ?? "?"}).`);
      setPollFast(true);
      syncs.reload();
    } catch (err) {
      setError(err);
    }
  };
  const runs = syncs.value?.items ?? [];
  return (
    <>
      <p>
        <Link href="/">← Integrations</Link>
      </p>
      <IntegrationHead hb={hb} id={id} summary={summary.value} onRenamed={summary.reload} />
      <ErrorNote error={summary.error} />
      <div class="row" role="group" aria-label="Start a sync">
        {TYPES.map((t) => (
          <button type="button" key={t.label} onClick={() => start(t.type, t.label)}>
            {t.label}
          </button>
        ))}
      </div>
      <p role="status" class="status">
        {status}
      </p>
      <ErrorNote error={error} />
      <ErrorNote error={syncs.error} />
      <Tabs tab={tab} onTab={show} />
      {tab === "runs" && <RunsPanel runs={runs} loaded={syncs.value !== undefined} />}
      {tab === "write-backs" && <WriteBacksPanel writeBacks={syncs.value?.write_backs} />}
      {tab === "activity" && (
        <section aria-labelledby="activity-title" role="tabpanel" id="panel-activity">
          <h2 id="activity-title">Activity</h2>
          <p class="muted">Webhook events, sync runs, write-backs, failed calls to the ATS and assessment orders, newest first.</p>
          <ActivityTable hb={hb} integrationId={id} />
        </section>
      )}
      {tab === "assessment" && <AssessmentPanel hb={hb} id={id} />}
    </>
  );
}
