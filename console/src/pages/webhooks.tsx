import type { EventTypeCatalogue, Hirebridge, WebhookEndpoint } from "hirebridge/client";
import { useState } from "preact/hooks";
import { DocText } from "../text.js";
import { DataTable, ErrorNote, StateBadge, fmtDate, useLoad } from "../ui.js";
import { DELIVERY_FILTERS, Deliveries, type DeliveryFilter } from "./deliveries.js";

type Catalogue = EventTypeCatalogue["items"];

/** A secret shown this once (after creation or a rotation), with what to do with it. */
function SecretOnce(props: { title: string; secret: string; note: string; onDone: () => void }) {
  return (
    <section class="panel secret" aria-labelledby="secret-title">
      <h2 id="secret-title">{props.title}</h2>
      <p>
        <strong>Shown only now.</strong> {props.note}
      </p>
      <p>
        <code data-secret>{props.secret}</code>
      </p>
      <button type="button" onClick={props.onDone}>
        I have stored the secret
      </button>
    </section>
  );
}

/** The form that adds an endpoint: its URL, a description, the event types it receives (none: all). */
function CreateForm(props: { hb: Hirebridge; types: Catalogue; onCreated: (e: WebhookEndpoint, secret: string) => void }) {
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [picked, setPicked] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await props.hb.webhookEndpoints.create({
        url,
        description,
        event_types: picked as WebhookEndpoint["event_types"],
      });
      const { secret, ...endpoint } = created;
      setUrl("");
      setDescription("");
      setPicked([]);
      props.onCreated(endpoint, secret);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const toggle = (type: string, on: boolean) => setPicked((p) => (on ? [...p, type] : p.filter((t) => t !== type)));
  return (
    <section class="panel" aria-labelledby="create-title">
      <h2 id="create-title">Add an endpoint</h2>
      <form onSubmit={submit} class="form-grid">
        <label for="endpoint-url">Endpoint URL</label>
        <input id="endpoint-url" type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        <label for="endpoint-description">Description</label>
        <input id="endpoint-description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        <fieldset class="types">
          <legend>Event types (none checked: every type)</legend>
          {props.types.map((t) => (
            <label class="check" key={t.type}>
              <input type="checkbox" checked={picked.includes(t.type)} onChange={(e) => toggle(t.type, e.currentTarget.checked)} />
              <code>{t.type}</code>
            </label>
          ))}
        </fieldset>
        <div class="row">
          <button type="submit" disabled={busy}>
            {busy ? "Adding…" : "Add endpoint"}
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}

type Act = "rotate" | "toggle" | "delete";

/** One endpoint's row: where, what, its state, and what can be done to it. */
function EndpointRow(props: {
  e: WebhookEndpoint;
  selected: boolean;
  onAct: (e: WebhookEndpoint, act: Act) => void;
  onSelect: (e: WebhookEndpoint) => void;
}) {
  const { e } = props;
  const [confirming, setConfirming] = useState(false);
  return (
    <tr data-endpoint={e.id} data-disabled={String(e.disabled)}>
      <td>
        <code>{e.url}</code>
        {e.description && <div class="muted">{e.description}</div>}
      </td>
      <td>{e.event_types.length ? e.event_types.join(", ") : "every type"}</td>
      <td>
        <StateBadge state={e.disabled ? "disabled" : "enabled"} />
        {e.disabled_reason && <div class="error-text">{e.disabled_reason}</div>}
        {e.failing_since && <div class="muted">failing since {fmtDate(e.failing_since)}</div>}
        {e.previous_secret_expires_at && <div class="muted">old secret signs until {fmtDate(e.previous_secret_expires_at)}</div>}
      </td>
      <td>
        <div class="row">
          <button type="button" class="secondary small" aria-pressed={props.selected} onClick={() => props.onSelect(e)}>
            Deliveries
          </button>
          <button type="button" class="secondary small" onClick={() => props.onAct(e, "rotate")}>
            Rotate secret
          </button>
          <button type="button" class="secondary small" onClick={() => props.onAct(e, "toggle")}>
            {e.disabled ? "Enable" : "Disable"}
          </button>
          {confirming ? (
            <button type="button" class="danger small" onClick={() => props.onAct(e, "delete")}>
              Confirm delete
            </button>
          ) : (
            <button type="button" class="secondary small" onClick={() => setConfirming(true)}>
              Delete
            </button>
          )}
        </div>
      </td>
    </tr>
  );
}

/** What an action on an endpoint does, and the words that say it was done. */
async function act(hb: Hirebridge, e: WebhookEndpoint, what: Act): Promise<{ said: string; secret?: string; until?: string }> {
  if (what === "rotate") {
    const r = await hb.webhookEndpoints.rotateSecret(e.id);
    return { said: `Secret of ${e.url} rotated.`, secret: r.secret, until: r.previous_secret_expires_at };
  }
  if (what === "toggle") {
    const updated = await hb.webhookEndpoints.update(e.id, { disabled: !e.disabled });
    return { said: `${e.url} ${updated.disabled ? "disabled" : "enabled"}.` };
  }
  await hb.webhookEndpoints.delete(e.id);
  return { said: `${e.url} deleted.` };
}

/** The event types an endpoint can receive, each with what it means. */
function EventTypes(props: { types: Catalogue }) {
  return (
    <section class="panel" aria-labelledby="types-title">
      <h2 id="types-title">Event types</h2>
      <dl class="event-types">
        {props.types.map((t) => (
          <div key={t.type}>
            <dt>
              <code>{t.type}</code>
            </dt>
            <dd>
              <DocText text={t.description} />
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/**
 * Webhooks: the organisation's endpoints (add, with the signing secret shown once; rotate, disable
 * or enable, delete), each one's deliveries (paged, filtered by status, with what each carried; a
 * test event, re-send one or everything that failed since a time: deliveries.tsx), and the
 * catalogue of event types (docs/webhooks-out.md).
 */
export function WebhooksPage(props: { hb: Hirebridge }) {
  const { hb } = props;
  const endpoints = useLoad(() => hb.webhookEndpoints.list(), [], 10_000);
  const types = useLoad(() => hb.webhookEndpoints.eventTypes(), []);
  const [secret, setSecret] = useState<{ title: string; secret: string; note: string } | null>(null);
  // `?endpoint={id}&status=failed` opens that endpoint's deliveries so filtered (a link to share, kept across sign-in).
  const [selected, setSelectedState] = useState<string | null>(() => new URLSearchParams(location.search).get("endpoint"));
  const [filter, setFilterState] = useState<DeliveryFilter>(() => {
    const asked = new URLSearchParams(location.search).get("status") ?? "";
    return (DELIVERY_FILTERS as readonly string[]).includes(asked) ? (asked as DeliveryFilter) : "";
  });
  const remember = (endpoint: string | null, status: DeliveryFilter) => {
    const q = new URLSearchParams();
    if (endpoint) q.set("endpoint", endpoint);
    if (endpoint && status) q.set("status", status);
    const query = q.toString();
    history.replaceState(null, "", query ? `${location.pathname}?${query}` : location.pathname);
  };
  const setSelected = (id: string | null) => {
    setSelectedState(id);
    setFilterState("");
    remember(id, "");
  };
  const setFilter = (f: DeliveryFilter) => {
    setFilterState(f);
    remember(selected, f);
  };
  const [status, setStatus] = useState("");
  const [error, setError] = useState<unknown>(null);
  const onAct = async (e: WebhookEndpoint, what: Act) => {
    setError(null);
    try {
      const done = await act(hb, e, what);
      setStatus(done.said);
      if (done.secret) {
        const note = `The old secret keeps signing every delivery too until ${fmtDate(done.until)}: switch your receiver to this one before then.`;
        setSecret({ title: "New signing secret", secret: done.secret, note });
      }
      if (what === "delete" && selected === e.id) setSelected(null);
      endpoints.reload();
    } catch (err) {
      setError(err);
    }
  };
  const chosen = endpoints.value?.items.find((e) => e.id === selected);
  return (
    <>
      <h1>Webhooks</h1>
      <p>Hirebridge POSTs your organisation's events to these endpoints, signed per Standard Webhooks, at least once.</p>
      {secret && <SecretOnce {...secret} onDone={() => setSecret(null)} />}
      <p role="status" class="status">
        {status}
      </p>
      <ErrorNote error={error ?? endpoints.error ?? types.error} />
      <section class="panel" aria-labelledby="endpoints-title">
        <h2 id="endpoints-title">Endpoints</h2>
        {endpoints.value && endpoints.value.items.length === 0 && <p class="muted">No endpoint yet: add one below.</p>}
        {endpoints.value && endpoints.value.items.length > 0 && (
          <DataTable caption="Webhook endpoints" headers={["URL", "Event types", "State", "Actions"]}>
            {endpoints.value.items.map((e) => (
              <EndpointRow e={e} key={e.id} selected={e.id === selected} onAct={onAct} onSelect={(x) => setSelected(x.id)} />
            ))}
          </DataTable>
        )}
      </section>
      {chosen && (
        <Deliveries hb={hb} endpoint={chosen} key={chosen.id} types={types.value?.items.map((t) => t.type) ?? []} filter={filter} onFilter={setFilter} />
      )}
      {types.value && (
        <CreateForm
          hb={hb}
          types={types.value.items}
          onCreated={(e, s) => {
            setSecret({
              title: "Signing secret",
              secret: s,
              note: "Store it where your receiver verifies deliveries (the SDK's verifyWebhook, or any Standard Webhooks library): it is never shown again.",
            });
            setStatus(`Endpoint ${e.url} added.`);
            setSelected(e.id);
            endpoints.reload();
          }}
        />
      )}
      {types.value && <EventTypes types={types.value.items} />}
    </>
  );
}
