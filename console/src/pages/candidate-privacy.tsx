/**
 * A candidate's personal data on request (issue 41, docs/privacy.md): **Export data** downloads
 * everything Hirebridge holds about them as JSON (`GET …/candidates/{id}/export`), **Erase personal
 * data** erases it (`DELETE …/candidates/{id}/`) after a dialog that says what happens and a typed
 * confirmation, and the notice after it says what was erased by kind and count, as the API answered.
 */
import type { Candidate, CandidateErasure, Hirebridge } from "hirebridge/client";
import { useEffect, useRef, useState } from "preact/hooks";
import { ErrorNote } from "../ui.js";

/** What the operator types before the erase button enables. */
export const ERASE_WORD = "ERASE";

/** Downloads `doc` as a JSON file named `name` (a blob link clicked: nothing leaves the browser). */
function download(doc: unknown, name: string): void {
  const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: "application/json" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Export data: the candidate's export as `candidate-{id}.json`. */
export function ExportButton(props: { hb: Hirebridge; positionId: string; candidate: Candidate; onError: (err: unknown) => void }) {
  const { hb, positionId, candidate: c } = props;
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    props.onError(null);
    try {
      download(await hb.candidates.export(positionId, c.id), `candidate-${c.id}.json`);
    } catch (err) {
      props.onError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" class="secondary small" disabled={busy} aria-label={`Export data of ${c.name}`} onClick={run}>
      {busy ? "Exporting…" : "Export data"}
    </button>
  );
}

/**
 * The confirmation, as a modal dialog: what the erasure does and does not reach, an optional reason
 * (kept in the tombstone), and the word to type before **Erase personal data** enables. Cancel (or
 * Escape) erases nothing.
 */
export function EraseDialog(props: {
  hb: Hirebridge;
  positionId: string;
  candidate: Candidate;
  onErased: (result: CandidateErasure) => void;
  onCancel: () => void;
}) {
  const { hb, positionId, candidate: c } = props;
  const ref = useRef<HTMLDialogElement>(null);
  const [reason, setReason] = useState("");
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const dialog = ref.current!;
    if (!dialog.open) dialog.showModal();
    return () => dialog.open && dialog.close();
  }, []);
  const confirmed = typed.trim() === ERASE_WORD;
  const erase = async (e: Event) => {
    e.preventDefault();
    if (!confirmed || busy) return;
    setBusy(true);
    setError(null);
    try {
      const result = await hb.candidates.erase(positionId, c.id, reason.trim() ? { reason: reason.trim() } : {});
      ref.current?.close();
      props.onErased(result);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <dialog
      ref={ref}
      class="panel danger-zone erase-dialog"
      aria-labelledby="erase-title"
      aria-describedby="erase-what"
      onCancel={(e) => {
        e.preventDefault(); // Escape: closed by the parent, as Cancel is
        if (!busy) props.onCancel();
      }}
    >
      <h2 id="erase-title">Erase the personal data of {c.name}?</h2>
      <div id="erase-what">
        <ul>
          <li>
            Everything Hirebridge holds about this candidate is removed everywhere in Hirebridge: the candidate and their interview,
            the results written back, the events and webhook deliveries that name them, stored answers, and their email, name or
            phone in errors and logs.
          </li>
          <li>
            A tombstone keeps the ids only (candidate <code>{c.id}</code>, position, organisation and ATS application), the time,
            who asked and the reason. The sync does not bring the candidate back.
          </li>
          <li>
            The ATS keeps its own copy of the application and the candidate: erase them there too. Hirebridge does not delete
            upstream data.
          </li>
        </ul>
        <p>This cannot be undone. Export the data first if the person asked for a copy.</p>
      </div>
      <form onSubmit={erase} class="form-grid" noValidate>
        <label for="erase-reason">Reason (optional, no personal data)</label>
        <input id="erase-reason" maxLength={500} value={reason} autocomplete="off" onInput={(e) => setReason(e.currentTarget.value)} />
        <label for="erase-confirm">
          Type <code>{ERASE_WORD}</code> to confirm
        </label>
        <input id="erase-confirm" value={typed} autocomplete="off" spellcheck={false} onInput={(e) => setTyped(e.currentTarget.value)} />
        <span />
        <div class="row">
          <button type="submit" class="danger" disabled={!confirmed || busy}>
            {busy ? "Erasing…" : "Erase personal data"}
          </button>
          <button type="button" class="secondary" disabled={busy} onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
    </dialog>
  );
}

/** After an erasure: what was erased by kind and count (the API's answer), and what the ATS keeps. */
export function ErasedNotice(props: { candidateId: string; result: CandidateErasure; onDismiss: () => void }) {
  const entries = Object.entries(props.result.erased);
  const some = entries.filter(([, n]) => n > 0);
  const none = entries.filter(([, n]) => n === 0).map(([kind]) => kind.replaceAll("_", " "));
  // The button that opened the dialog went with the row: keyboard and screen-reader users go on from here.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [props.candidateId]);
  return (
    <section class="panel notice" role="status" aria-labelledby="erased-title" data-erased={props.candidateId}>
      <h2 id="erased-title" tabIndex={-1} ref={heading}>
        Personal data erased
      </h2>
      <p>
        Candidate <code>{props.candidateId}</code> is erased from Hirebridge. What was erased, by kind:
      </p>
      <ul class="erased-counts">
        {some.map(([kind, n]) => (
          <li key={kind} data-kind={kind}>
            {kind.replaceAll("_", " ")}: <strong>{n}</strong>
          </li>
        ))}
      </ul>
      {none.length > 0 && <p class="muted">Nothing held them in: {none.join(", ")}.</p>}
      <p>{props.result.ats_copy}</p>
      <button type="button" class="secondary small" onClick={props.onDismiss}>
        Dismiss
      </button>
    </section>
  );
}
