import type { Hirebridge, WebhookDelivery, WebhookEndpoint } from "hirebridge/client";
import { useState } from "preact/hooks";
import { DataTable, ErrorNote, StateBadge, fmtDate, fmtMs, useLoad } from "../ui.js";

export const DELIVERY_FILTERS = ["", "pending", "succeeded", "failed"] as const;
export type DeliveryFilter = (typeof DELIVERY_FILTERS)[number];
const PAGE_SIZE = 20;

/** What a delivery carried: its `webhook-id`, the headers of each attempt and the body as sent. */
function DeliveryDetail(props: { d: WebhookDelivery }) {
  const { d } = props;
  const sent = d.attempts.filter((a) => a.request_headers);
  return (
    <div class="delivery-detail" id={`detail-${d.message_id}`}>
      <p>
        <strong>webhook-id</strong> <code data-webhook-id>{d.webhook_id}</code>
        {d.test && <span class="badge badge-test">test event</span>}
      </p>
      {sent.length === 0 && <p class="muted">No headers recorded for its attempts (sent before they were kept).</p>}
      {sent.map((a) => (
        <div key={a.attempt} class="headers" data-headers={a.attempt}>
          <h4>Headers of attempt {a.attempt}</h4>
          <dl>
            {Object.entries(a.request_headers ?? {}).map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd>
                  <code>{v}</code>
                </dd>
              </div>
            ))}
          </dl>
        </div>
      ))}
      <h4>Payload</h4>
      <pre class="payload" data-payload tabIndex={0} aria-label={`Payload of ${d.type} ${d.webhook_id}`}>
        {JSON.stringify(d.payload, null, 2)}
      </pre>
    </div>
  );
}

/** One delivery: the event, its status and every attempt (newest first); Details and Re-send. */
function DeliveryRow(props: { d: WebhookDelivery; open: boolean; onToggle: () => void; onResend: (d: WebhookDelivery) => void; busy: boolean }) {
  const { d } = props;
  return (
    <>
      <tr data-message={d.message_id} data-status={d.status} data-test={String(d.test)}>
        <td>
          <code>{d.type}</code>
          {d.test && <span class="badge badge-test">test</span>}
          <br />
          <span class="muted">{fmtDate(d.timestamp)}</span>
        </td>
        <td>
          <StateBadge state={d.status} />
          {d.next_attempt_at && <span class="muted"> next {fmtDate(d.next_attempt_at)}</span>}
        </td>
        <td>
          <ol class="attempts" reversed aria-label={`Attempts at ${d.type}`}>
            {d.attempts.map((a) => (
              <li key={a.attempt} data-attempt={a.attempt}>
                Attempt {a.attempt}: {a.status_code ?? "no answer"} {a.ok ? "ok" : "failed"} in {fmtMs(a.latency_ms)}, {fmtDate(a.attempted_at)}
                {a.manual && " (re-sent)"}
                {a.error && <span class="error-text"> {a.error}</span>}
                {a.response && <span class="muted"> “{a.response.slice(0, 80)}”</span>}
              </li>
            ))}
          </ol>
        </td>
        <td class="actions">
          <button type="button" class="secondary small" aria-expanded={props.open} aria-controls={`detail-${d.message_id}`} onClick={props.onToggle}>
            Details
          </button>
          <button type="button" class="secondary small" disabled={props.busy} onClick={() => props.onResend(d)}>
            Re-send
          </button>
        </td>
      </tr>
      {props.open && (
        <tr class="history" data-detail={d.message_id}>
          <td colSpan={4}>
            <DeliveryDetail d={d} />
          </td>
        </tr>
      )}
    </>
  );
}

/** `datetime-local`'s value for a time (local, to the minute). */
const localInput = (t: Date) => new Date(t.getTime() - t.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** Send a signed example event of a type to this endpoint; re-send every delivery that failed since a time. */
function EndpointTools(props: { hb: Hirebridge; endpoint: WebhookEndpoint; types: string[]; onDone: (said: string) => void }) {
  const { hb, endpoint } = props;
  const [type, setType] = useState(endpoint.event_types[0] ?? props.types[0] ?? "");
  const [since, setSince] = useState(() => localInput(new Date(Date.now() - 24 * 3600_000)));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (e: Event, what: () => Promise<string>) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      props.onDone(await what());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const sendTest = async () => {
    const sent = await hb.webhookEndpoints.sendTestEvent(endpoint.id, type as WebhookDelivery["type"]);
    return `Test event ${sent.type} sent (webhook-id ${sent.message_id}).`;
  };
  const resendFailed = async () => {
    const answer = await hb.webhookEndpoints.resendFailed(endpoint.id, new Date(since)); // the input's local time
    return `${answer.queued} failed ${answer.queued === 1 ? "delivery" : "deliveries"} since ${fmtDate(answer.since)} queued again.`;
  };
  return (
    <div class="endpoint-tools">
      <form class="row" onSubmit={(e) => run(e, sendTest)}>
        <label for="test-type">Event type</label>
        <select id="test-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
          {props.types.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <button type="submit" disabled={busy || !type}>
          Send test event
        </button>
      </form>
      <form class="row" onSubmit={(e) => run(e, resendFailed)}>
        <label for="resend-since">Failed since</label>
        <input id="resend-since" type="datetime-local" required value={since} onInput={(e) => setSince(e.currentTarget.value)} />
        <button type="submit" class="secondary" disabled={busy || !since}>
          Re-send failed
        </button>
      </form>
      <ErrorNote error={error} />
    </div>
  );
}

/**
 * The chosen endpoint's deliveries, newest first, 20 a page with **Older / Newer**, filtered by
 * status (the page shown polled every 3 s); each with its attempts, **Details** (webhook-id, the
 * headers of each attempt, the payload) and **Re-send**; a test event and a re-send of what failed.
 */
export function Deliveries(props: {
  hb: Hirebridge;
  endpoint: WebhookEndpoint;
  types: string[];
  filter: DeliveryFilter;
  onFilter: (f: DeliveryFilter) => void;
}) {
  const { hb, endpoint, filter } = props;
  const [status, setStatus] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [cursors, setCursors] = useState<string[]>([]);
  const [open, setOpen] = useState<string | null>(null);
  const cursor = cursors.at(-1);
  const list = useLoad(
    () => hb.webhookEndpoints.deliveries(endpoint.id, { limit: PAGE_SIZE, ...(filter ? { status: filter } : {}), ...(cursor ? { cursor } : {}) }),
    [endpoint.id, filter, cursor],
    3000,
  );
  const resend = async (d: WebhookDelivery) => {
    setBusy(true);
    setError(null);
    try {
      await hb.webhookEndpoints.resend(endpoint.id, d.message_id);
      setStatus(`${d.type} re-sent: a new attempt is on its way.`);
      list.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const page = list.value;
  return (
    <section class="panel" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries to {endpoint.url}</h2>
      <EndpointTools
        hb={hb}
        endpoint={endpoint}
        types={props.types}
        onDone={(said) => {
          setStatus(said);
          list.reload();
        }}
      />
      <div class="row filters">
        <label for="delivery-status">Status</label>
        <select
          id="delivery-status"
          value={filter}
          onChange={(e) => {
            setCursors([]);
            props.onFilter(e.currentTarget.value as DeliveryFilter);
          }}
        >
          {DELIVERY_FILTERS.map((f) => (
            <option key={f} value={f}>
              {f || "any status"}
            </option>
          ))}
        </select>
      </div>
      <p role="status" class="status">
        {status}
      </p>
      <ErrorNote error={error ?? list.error} />
      {page && page.items.length === 0 && <p class="muted">{filter ? `No ${filter} deliveries.` : "No deliveries yet."}</p>}
      {page && page.items.length > 0 && (
        <DataTable caption={`Deliveries to ${endpoint.url}`} headers={["Event", "Status", "Attempts", "Actions"]}>
          {page.items.map((d) => (
            <DeliveryRow
              d={d}
              key={d.message_id}
              open={open === d.message_id}
              onToggle={() => setOpen((o) => (o === d.message_id ? null : d.message_id))}
              onResend={resend}
              busy={busy}
            />
          ))}
        </DataTable>
      )}
      {page && (cursors.length > 0 || page.next_cursor) && (
        <div class="row pager">
          {cursors.length > 0 && (
            <button type="button" class="secondary" onClick={() => setCursors((c) => c.slice(0, -1))}>
              Newer
            </button>
          )}
          {page.next_cursor && (
            <button type="button" class="secondary" onClick={() => setCursors((c) => [...c, page.next_cursor!])}>
              Older
            </button>
          )}
          <span class="muted">Page {cursors.length + 1}</span>
        </div>
      )}
    </section>
  );
}
