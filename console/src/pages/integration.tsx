import type { Hirebridge, SyncRun } from "hirebridge/client";
import { useState } from "preact/hooks";
import { BarChart, DataTable, ErrorNote, Link, StateBadge, fmtDate, fmtMs, useLoad } from "../ui.js";

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

export function IntegrationPage(props: { hb: Hirebridge; id: string }) {
  const { hb, id } = props;
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
  const recent = [...runs].reverse().slice(-12);
  return (
    <>
      <p>
        <Link href="/">← Integrations</Link>
      </p>
      <h1>Integration {id}</h1>
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
      <section aria-labelledby="runs-title">
        <h2 id="runs-title">Sync runs</h2>
        {syncs.value && runs.length === 0 && <p>No sync run yet.</p>}
        {runs.length > 0 && (
          <>
            <div class="charts">
              <BarChart title="Records synced per run (created + updated), oldest first" bars={recent.map((r, i) => ({ label: `${r.model === "jobs" ? "J" : "A"}${i + 1}`, value: r.created + r.updated }))} />
              <BarChart
                title="Duration per run, seconds, oldest first"
                bars={recent.map((r, i) => ({ label: `${r.model === "jobs" ? "J" : "A"}${i + 1}`, value: r.duration_ms === null ? 0 : Math.round(r.duration_ms / 100) / 10, tone: "alt" }))}
                unit=" s"
              />
            </div>
            <DataTable caption="Sync runs, newest first" headers={["Model", "Type", "Trigger", "State", "Created", "Updated", "Unlinked", "Skipped", "Failed", "Duration", "Started", "Error"]}>
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
                      <td class="error-text">{r.last_error ?? ""}</td>
                    </tr>
                  ))}
                </DataTable>
          </>
        )}
      </section>
      <section aria-labelledby="wb-title">
        <h2 id="wb-title">Write-backs to the ATS</h2>
        {syncs.value && syncs.value.write_backs.length === 0 && <p>No interview result written back yet.</p>}
        {syncs.value && syncs.value.write_backs.length > 0 && (
          <DataTable caption="Interview results written back, newest first" headers={["Application", "Outcome", "Target stage", "State", "Stage moved", "Result link", "Note", "Attempts", "Error"]}>
                {syncs.value.write_backs.map((w) => (
                  <tr key={w.id} data-write-back-state={w.state} data-application={w.application_id}>
                    <td>{w.application_id}</td>
                    <td>{w.outcome}</td>
                    <td>{w.target_stage ?? "–"}</td>
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
    </>
  );
}
