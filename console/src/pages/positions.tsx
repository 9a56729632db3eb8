import type { Candidate, CandidateErasure, Hirebridge, Interview, Position, PositionUpdate } from "hirebridge/client";
import { PositionUpdateSchema } from "../../../src/contracts/recruiting/positions.js";
import { useEffect, useState } from "preact/hooks";
import { ActivityTable } from "./activity.js";
import { EraseDialog, ErasedNotice, ExportButton } from "./candidate-privacy.js";
import { describeError } from "../errors.js";
import { validateBody } from "../validate.js";
import { BarChart, DataTable, ErrorNote, ExternalLink, Link, StateBadge, useLoad } from "../ui.js";

const TONES: Record<string, string> = { not_started: "#8a93a6", completed: "#2450d8", graded: "#1e6b35", errored: "#b3261e", cancelled: "#6b4e16" };

/** A position's candidates by interview status, as one stacked bar (its numbers in the label and beside it). */
function InterviewMix(props: { hb: Hirebridge; positionId: string }) {
  const rows = useLoad(() => candidatesWithInterviews(props.hb, props.positionId), [props.positionId]);
  if (rows.error) return <span class="error-text">{describeError(rows.error).message}</span>;
  if (!rows.value) return <span class="muted">loading…</span>;
  const counts = STATUSES.map((s) => [s, rows.value!.filter((r) => r.interview?.status === s).length] as const).filter(([, n]) => n > 0);
  const total = rows.value.length;
  if (total === 0) return <span class="muted">no candidates</span>;
  const text = counts.map(([s, n]) => `${n} ${s.replace("_", " ")}`).join(", ");
  let x = 0;
  return (
    <span class="mix">
      <svg viewBox="0 0 100 10" width="100" height="10" role="img" aria-label={`${total} candidates: ${text}`}>
        {counts.map(([s, n]) => {
          const w = (n / total) * 100;
          const rect = <rect key={s} x={x} y={0} width={w} height={10} fill={TONES[s]} />;
          x += w;
          return rect;
        })}
      </svg>
      <span class="mix-text">{text}</span>
    </span>
  );
}

/** The organisation's integrations by id, for the names of the ATS a position is linked to. */
function useIntegrationNames(hb: Hirebridge) {
  const list = useLoad(() => hb.integrations.list(), []);
  return new Map((list.value?.items ?? []).map((i) => [i.id, i.display_name]));
}

/** The ATS a position is linked to, by its integration's name. */
function LinkedAts(props: { position: Position; names: Map<string, string> }) {
  const id = props.position.upstream_integration_id;
  if (!props.position.upstream_job_id_id || !id) return <span class="muted">not linked</span>;
  return <Link href={`/integrations/${encodeURIComponent(id)}`}>{props.names.get(id) ?? id}</Link>;
}

export function PositionsPage(props: { hb: Hirebridge }) {
  const list = useLoad(() => props.hb.positions.list(), []);
  const names = useIntegrationNames(props.hb);
  return (
    <>
      <h1>Positions</h1>
      <ErrorNote error={list.error} />
      {list.value && list.value.items.length === 0 && <p>No position yet. Connect an ATS: its jobs become positions.</p>}
      {list.value && list.value.items.length > 0 && (
        <DataTable caption="Your organisation’s positions" headers={["Position", "State", "ATS", "Candidate stage", "Moves applications", "Candidates by interview status"]}>
              {list.value.items.map((p) => (
                <tr key={p.id}>
                  <td>
                    <Link href={`/positions/${p.id}`}>{p.name}</Link>
                  </td>
                  <td>
                    <StateBadge state={p.state} />
                  </td>
                  <td>
                    <LinkedAts position={p} names={names} />
                  </td>
                  <td>{p.candidate_stage ?? "–"}</td>
                  <td>{p.auto_update_stages ? "yes" : "no"}</td>
                  <td>
                    <InterviewMix hb={props.hb} positionId={p.id} />
                  </td>
                </tr>
              ))}
            </DataTable>
      )}
    </>
  );
}

type Stage = { id: string; name: string };
const STAGE_FIELDS = [
  ["candidate_stage", "Candidate stage (its applications become candidates)"],
  ["passed_stage", "Passed stage (interview score at or above the minimum)"],
  ["rejected_stage", "Rejected stage (score below the minimum)"],
  ["needs_reviewed_stage", "Needs-review stage (interview errored or cancelled)"],
] as const;
type StageField = (typeof STAGE_FIELDS)[number][0];

/** The stage a stored value names (by id first, then by name, case-insensitively), as the sync engine matches it. A stage field holds its id (issue 42). */
const matchStage = (stages: Stage[], value: string | null | undefined) =>
  value ? (stages.find((s) => s.id === value) ?? stages.find((s) => s.name.toLowerCase() === value.toLowerCase())) : undefined;

function StageMapping(props: { hb: Hirebridge; position: Position; onSaved: (p: Position) => void }) {
  const { hb, position } = props;
  const stages = useLoad(async () => {
    const { data } = await hb.ats.jobs.list({ integration_id: position.upstream_integration_id!, ids: position.upstream_job_id_id! });
    return (data.results[0]?.stages ?? []).map((s) => ({ id: s.id, name: s.name }) as Stage);
  }, [position.id]);
  const initial = () => {
    const form: Record<string, string> = {};
    for (const [field] of STAGE_FIELDS) {
      const current = position[field];
      form[field] = matchStage(stages.value ?? [], current)?.id ?? current ?? "";
    }
    return form;
  };
  const [form, setForm] = useState<Record<string, string> | null>(null);
  const [minScore, setMinScore] = useState(position.min_score === undefined ? "" : String(position.min_score));
  const [auto, setAuto] = useState(position.auto_update_stages);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  if (stages.error) return <ErrorNote error={stages.error} />;
  if (!stages.value) return <p role="status">Loading the job's stages from the ATS…</p>;
  const values = form ?? initial();

  const save = async (e: Event) => {
    e.preventDefault();
    setStatus("");
    setError(null);
    const body: Record<string, unknown> = { auto_update_stages: auto };
    // Stage fields hold the stage's id, so a rename upstream changes nothing (the page shows the
    // stage's name as the job names it now); a value saved as a name before is rewritten as its id.
    for (const [field] of STAGE_FIELDS) {
      if (values[field] !== (position[field] ?? "")) body[field] = values[field] === "" ? null : values[field];
    }
    // A number field keeps what was typed: "6.5" or "sixty" goes to the check as the API would see it.
    if (minScore.trim() !== "") body["min_score"] = /^-?\d+(\.\d+)?$/.test(minScore.trim()) ? Number(minScore) : minScore.trim();
    // The API's own contract: what it would refuse is refused here, in its words.
    const found: Record<string, string> = {};
    for (const issue of validateBody(PositionUpdateSchema, body)) found[String(issue.loc[1] ?? "form")] ??= issue.msg;
    setProblems(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    try {
      const saved = await hb.positions.update(position.id, body as PositionUpdate);
      setStatus("Saved.");
      props.onSaved(saved);
    } catch (err) {
      // The form keeps what was typed; the answer says what to change.
      setError(err);
      const fields: Record<string, string> = {};
      for (const f of describeError(err).fields) if (f.field) fields[f.field] = f.message;
      setProblems(fields);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={save} class="form-grid" aria-labelledby="mapping-title" noValidate>
      {STAGE_FIELDS.map(([field, label]) => {
        const value = values[field] ?? "";
        const known = stages.value!.some((s) => s.id === value);
        return (
          <>
            <label for={field}>{label}</label>
            <div>
              <select
                id={field}
                name={field}
                value={value}
                aria-invalid={problems[field] ? "true" : undefined}
                aria-describedby={problems[field] ? `${field}-problem` : undefined}
                onChange={(e) => setForm({ ...values, [field]: e.currentTarget.value })}
              >
                <option value="">(none)</option>
                {stages.value!.map((s) => (
                  <option value={s.id} key={s.id}>
                    {s.name}
                  </option>
                ))}
                {value && !known && <option value={value}>{value} (not a stage of this job)</option>}
              </select>
              {problems[field] && (
                <p class="field-problem" id={`${field}-problem`}>
                  {problems[field]}
                </p>
              )}
            </div>
          </>
        );
      })}
      <label for="min_score">Minimum score to pass</label>
      <div>
        <input
          id="min_score"
          name="min_score"
          inputMode="numeric"
          value={minScore}
          aria-invalid={problems["min_score"] ? "true" : undefined}
          aria-describedby={problems["min_score"] ? "min_score-problem" : undefined}
          onInput={(e) => setMinScore(e.currentTarget.value)}
        />
        {problems["min_score"] && (
          <p class="field-problem" id="min_score-problem">
            {problems["min_score"]}
          </p>
        )}
      </div>
      <span />
      <label class="check">
        <input type="checkbox" id="auto_update_stages" checked={auto} onChange={(e) => setAuto(e.currentTarget.checked)} /> Move applications in the ATS when
        their interview ends
      </label>
      <span />
      <div class="row">
        <button type="submit" disabled={busy}>
          {busy ? "Saving…" : "Save stage mapping"}
        </button>
      </div>
      <span />
      <div>
        <p role="status" class="status">
          {status}
        </p>
        <ErrorNote error={error} />
      </div>
    </form>
  );
}

type Row = { candidate: Candidate; interview: Interview | null; error: unknown };

/** Each candidate with its interview record, six requests at a time. */
async function candidatesWithInterviews(hb: Hirebridge, positionId: string): Promise<Row[]> {
  const candidates = await hb.candidates.list(positionId);
  const rows: Row[] = candidates.map((candidate) => ({ candidate, interview: null, error: null }));
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++]!;
      try {
        row.interview = await hb.interviews.get(positionId, row.candidate.id);
      } catch (err) {
        row.error = err;
      }
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  return rows;
}

const STATUSES = ["not_started", "completed", "graded", "errored", "cancelled"] as const;

/** A candidate with its interview; its history (from the integration's trail) opens on the row below. */
function CandidateRow(props: {
  hb: Hirebridge;
  row: Row;
  positionId: string;
  integrationId: string | null | undefined;
  open: boolean;
  onToggle: () => void;
  onErase: () => void;
  onError: (err: unknown) => void;
}) {
  const { hb, integrationId, open } = props;
  const { candidate: c, interview: i, error } = props.row;
  return (
    <>
                      <tr data-candidate={c.id}>
                        <td>
                          {c.name}
                          <br />
                          <span class="muted">{c.email}</span>
                        </td>
                        <td>{error ? <span class="error-text">{describeError(error).message}</span> : <StateBadge state={i?.status} />}</td>
                        <td>{i?.score ?? c.score ?? "–"}</td>
                        <td class="feedback">{i?.feedback ?? c.feedback ?? "–"}</td>
                        <td>
                          <ExternalLink href={i?.transcript_link}>transcript</ExternalLink>
                        </td>
                        <td>
                          <ExternalLink href={i?.recording_link}>recording</ExternalLink>
                        </td>
                        <td>{c.upstream_application_id ? <code>{c.upstream_application_id}</code> : <span class="muted">not linked</span>}</td>
                        <td>
                          {integrationId && c.upstream_application_id ? (
                            <button
                              type="button"
                              class="secondary small"
                              aria-expanded={open}
                              aria-controls={`history-${c.id}`}
                              aria-label={`History of ${c.name}`}
                              onClick={props.onToggle}
                            >
                              History
                            </button>
                          ) : (
                            "–"
                          )}
                        </td>
                        <td class="row-actions">
                          <ExportButton hb={hb} positionId={props.positionId} candidate={c} onError={props.onError} />
                          <button type="button" class="danger small" aria-label={`Erase personal data of ${c.name}`} onClick={props.onErase}>
                            Erase personal data
                          </button>
                        </td>
                      </tr>
                      {open && integrationId && (
                        <tr class="history" id={`history-${c.id}`}>
                          <td colSpan={9}>
                            <ActivityTable hb={hb} integrationId={integrationId} candidateId={c.id} caption={`History of ${c.name}`} />
                          </td>
                        </tr>
                      )}
                      </>
  );
}

export function PositionPage(props: { hb: Hirebridge; id: string }) {
  const { hb, id } = props;
  const position = useLoad(() => hb.positions.get(id), [id]);
  const [saved, setSaved] = useState<Position | null>(null);
  const rows = useLoad(() => candidatesWithInterviews(hb, id), [id], 10000);
  const names = useIntegrationNames(hb);
  // `?candidate={id}` (an assessment order's link) opens that candidate's history on its row.
  const [open, setOpen] = useState<string | null>(() => new URLSearchParams(location.search).get("candidate"));
  const p = saved ?? position.value;
  const integrationId = p?.upstream_job_id_id ? p.upstream_integration_id : null;
  // An assessment integration's jobs have no stages to map (results go on the order): its category decides.
  // (Answered with the id it is about: the last good value is kept while another id loads.)
  const linked = useLoad(
    async () => ({ id: integrationId, category: integrationId ? (await hb.integrations.summary(integrationId)).category : null }),
    [integrationId],
  );
  const categoryKnown = linked.value?.id === integrationId || linked.error !== null;
  const category = { value: categoryKnown ? linked.value?.category : undefined };
  const [asked] = useState(open);
  // Erasure (issue 41): the dialog's candidate, the last erasure's answer, and the rows erased since the list loaded.
  const [erasing, setErasing] = useState<Candidate | null>(null);
  const [erased, setErased] = useState<{ id: string; result: CandidateErasure } | null>(null);
  const [gone, setGone] = useState<ReadonlySet<string>>(new Set());
  const [dataError, setDataError] = useState<unknown>(null);
  const shown = rows.value?.filter((r) => !gone.has(r.candidate.id));
  const loaded = rows.value !== undefined;
  useEffect(() => {
    if (loaded && asked) document.querySelector(`tr[data-candidate="${CSS.escape(asked)}"]`)?.scrollIntoView({ block: "center" });
  }, [loaded]);
  return (
    <>
      <p>
        <Link href="/positions">← Positions</Link>
      </p>
      <ErrorNote error={position.error} />
      {p && (
        <>
          <h1>{p.name}</h1>
          <p>
            <StateBadge state={p.state} />{" "}
            {p.upstream_job_id_id ? (
              <>
                linked to a job of <LinkedAts position={p} names={names} />
              </>
            ) : (
              "not linked to an ATS job"
            )}
          </p>
          <section aria-labelledby="mapping-title" class="panel">
            <h2 id="mapping-title">Stage mapping</h2>
            {category.value === "ASSESSMENT" ? (
              <p>
                Its candidates come from assessment orders placed in the ATS: their results go back on the order, not to a stage, so
                there is nothing to map.
              </p>
            ) : p.upstream_job_id_id && p.upstream_integration_id ? (
              categoryKnown && <StageMapping hb={hb} position={p} onSaved={setSaved} key={p.id} />
            ) : (
              <p>Only a position linked to an ATS job has stages to map.</p>
            )}
          </section>
        </>
      )}
      <section aria-labelledby="candidates-title">
        <h2 id="candidates-title">Candidates</h2>
        <ErrorNote error={rows.error} />
        {erased && <ErasedNotice candidateId={erased.id} result={erased.result} onDismiss={() => setErased(null)} />}
        <ErrorNote error={dataError} />
        {erasing && (
          <EraseDialog
            hb={hb}
            positionId={id}
            candidate={erasing}
            onCancel={() => setErasing(null)}
            onErased={(result) => {
              setGone(new Set([...gone, erasing.id]));
              setErased({ id: erasing.id, result });
              if (open === erasing.id) setOpen(null);
              setErasing(null);
              rows.reload();
            }}
          />
        )}
        {rows.value && shown && (
          <>
            <BarChart
              title="Candidates by interview status"
              bars={STATUSES.map((s) => ({ label: s.replace("_", " "), value: shown.filter((r) => r.interview?.status === s).length }))}
            />
            {shown.length === 0 && <p>No candidate yet.</p>}
            {shown.length > 0 && (
              <DataTable caption={`Candidates of ${p?.name ?? "the position"}`} headers={["Candidate", "Interview", "Score", "Feedback", "Transcript", "Recording", "ATS application", "History", "Personal data"]}>
                    {shown.map((row) => (
                      <CandidateRow
                        hb={hb}
                        row={row}
                        integrationId={integrationId}
                        open={open === row.candidate.id}
                        positionId={id}
                        onToggle={() => setOpen(open === row.candidate.id ? null : row.candidate.id)}
                        onErase={() => setErasing(row.candidate)}
                        onError={setDataError}
                        key={row.candidate.id}
                      />
                    ))}
                  </DataTable>
            )}
          </>
        )}
      </section>
    </>
  );
}
