import type { Hirebridge, IntegrationSummary, SyncRun } from "hirebridge/client";
import { useEffect, useRef, useState } from "preact/hooks";
import { DataTable, ErrorNote, HealthNote, Link, StateBadge, fmtDate, navigate, useLoad } from "../ui.js";

function lastSync(run: SyncRun | null) {
  if (!run) return <span class="muted">never</span>;
  return (
    <>
      <StateBadge state={run.state} /> <span class="muted">{fmtDate(run.finished_at ?? run.started_at ?? run.created_at)}</span>
    </>
  );
}

/** The tallest a connection flow may ask its frame to be (px): past it the frame scrolls. */
const MAX_FRAME_HEIGHT = 2000;

/**
 * The upstream's embedded connection flow in the page: the link opens in a frame; when the person
 * connects, the frame posts `{type: "success", data: {activation_token}}` (as @kombo-api/connect
 * expects) and `onSuccess` gets the token; `{type: "close"}` cancels. The frame is sized to its
 * content when the flow posts `{type: "resize", height}` (the sandbox's page does, on every change
 * of its size); otherwise it takes the window's height less the console's header. Once the flow
 * shows, the page scrolls so the whole frame and its Close button are in view.
 */
export function ConnectFrame(props: { link: string; title: string; onSuccess: (token: string) => void; onClose: () => void }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const wrap = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const origin = new URL(props.link).origin;
    const listen = (e: MessageEvent) => {
      if (e.origin !== origin || e.source !== frame.current?.contentWindow) return;
      const msg = e.data as { type?: string; height?: unknown; data?: { activation_token?: unknown } } | null;
      if (msg?.type === "success" && typeof msg.data?.activation_token === "string") props.onSuccess(msg.data.activation_token);
      if (msg?.type === "close") props.onClose();
      if (msg?.type === "resize" && typeof msg.height === "number" && Number.isFinite(msg.height) && frame.current) {
        // Set through the CSSOM: the console's CSP allows no inline style attribute.
        const border = frame.current.offsetHeight - frame.current.clientHeight; // the frame's box includes its border
        frame.current.style.height = `${Math.min(Math.max(Math.ceil(msg.height), 120), MAX_FRAME_HEIGHT) + border}px`;
        wrap.current?.scrollIntoView({ block: "nearest" });
      }
    };
    addEventListener("message", listen);
    return () => removeEventListener("message", listen);
  }, [props.link]);
  return (
    <div class="frame-wrap" ref={wrap}>
      <iframe
        src={props.link}
        title={props.title}
        class="connect-frame"
        ref={frame}
        onLoad={() => wrap.current?.scrollIntoView({ block: "nearest" })}
      />
      <button type="button" class="secondary" onClick={props.onClose}>
        Close the connection flow
      </button>
    </div>
  );
}

function ConnectPanel(props: { hb: Hirebridge; email: string | null; onDone: (integrationId: string) => void; onCancel: () => void }) {
  const [email, setEmail] = useState(props.email ?? "");
  const [org, setOrg] = useState("");
  const [link, setLink] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState("");
  const open = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { data } = await props.hb.connect.createLink({
        end_user_email: email,
        end_user_organization_name: org,
        integration_category: "ATS",
        link_type: "EMBEDDED",
      });
      setLink(data.link);
      setStatus("Pick your ATS in the connection flow below and connect it.");
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const activate = async (token: string) => {
    setStatus("Connected upstream; activating the integration…");
    try {
      const { data } = await props.hb.connect.activate({ activation_token: token });
      setStatus(`${org} is connected (${data.id}). Its first sync is running.`);
      props.onDone(data.id);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section class="panel" aria-labelledby="connect-title">
      <h2 id="connect-title">Connect a new ATS</h2>
      {!link && (
        <form onSubmit={open} class="form-grid">
          <label for="connect-email">Email of the person connecting</label>
          <input id="connect-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <label for="connect-org">Organisation name</label>
          <input id="connect-org" required value={org} onInput={(e) => setOrg(e.currentTarget.value)} />
          <div class="row">
            <button type="submit" disabled={busy}>
              {busy ? "Creating a link…" : "Open the connection flow"}
            </button>
            <button type="button" class="secondary" onClick={props.onCancel}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <p role="status" class="status">
        {status}
      </p>
      <ErrorNote error={error} />
      {link && <ConnectFrame link={link} title="ATS connection flow" onSuccess={activate} onClose={props.onCancel} />}
    </section>
  );
}

function DeletePanel(props: { hb: Hirebridge; integration: IntegrationSummary; onDone: () => void; onCancel: () => void }) {
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const id = props.integration.id;
  const remove = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await props.hb.integrations.delete(id);
      props.onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="panel danger-zone" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete {props.integration.display_name}?</h2>
      <p>
        This disconnects the ATS (<code>{id}</code>) and cannot be undone. Its positions and candidates stay, unlinked.
      </p>
      <form onSubmit={remove} class="form-grid">
        <label for="delete-confirm">Type the integration id to confirm</label>
        <input id="delete-confirm" value={typed} autocomplete="off" onInput={(e) => setTyped(e.currentTarget.value)} />
        <div class="row">
          <button type="submit" class="danger" disabled={typed !== id || busy}>
            Delete the integration
          </button>
          <button type="button" class="secondary" onClick={props.onCancel}>
            Keep it
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}

function RelinkPanel(props: { hb: Hirebridge; integration: IntegrationSummary; onDone: () => void; onCancel: () => void }) {
  const [link, setLink] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState("Creating a reconnection link…");
  useEffect(() => {
    props.hb.integrations.relink(props.integration.id, { link_type: "EMBEDDED" }).then(
      ({ data }) => {
        setLink(data.link);
        setStatus("Reconnect the ATS in the flow below.");
      },
      (err: unknown) => {
        setError(err);
        setStatus("");
      },
    );
  }, [props.integration.id]);
  return (
    <section class="panel" aria-labelledby="relink-title">
      <h2 id="relink-title">Reconnect {props.integration.display_name}</h2>
      <p role="status">{status}</p>
      <ErrorNote error={error} />
      {link && (
        <ConnectFrame
          link={link}
          title="ATS reconnection flow"
          onSuccess={() => {
            setStatus("Reconnected.");
            props.onDone();
          }}
          onClose={props.onCancel}
        />
      )}
    </section>
  );
}

export function IntegrationsPage(props: { hb: Hirebridge; email: string | null }) {
  const { hb } = props;
  const [panel, setPanel] = useState<{ kind: "connect" } | { kind: "delete" | "relink"; integration: IntegrationSummary } | null>(null);
  const list = useLoad(() => hb.integrations.list(), [], 5000);
  const close = () => {
    setPanel(null);
    list.reload();
  };
  return (
    <>
      <div class="page-head">
        <h1>Integrations</h1>
        <button type="button" onClick={() => setPanel({ kind: "connect" })} disabled={panel?.kind === "connect"}>
          Connect an ATS
        </button>
      </div>
      {panel?.kind === "connect" && <ConnectPanel hb={hb} email={props.email} onDone={(id) => navigate(`/integrations/${encodeURIComponent(id)}`)} onCancel={close} />}
      {panel?.kind === "delete" && <DeletePanel hb={hb} integration={panel.integration} onDone={close} onCancel={() => setPanel(null)} />}
      {panel?.kind === "relink" && <RelinkPanel hb={hb} integration={panel.integration} onDone={close} onCancel={() => setPanel(null)} />}
      <ErrorNote error={list.error} />
      {list.value && list.value.items.length === 0 && <p>No integration yet. Connect your ATS to bring its jobs and applicants in.</p>}
      {list.value && list.value.items.length > 0 && (
        <DataTable caption="Your organisation’s integrations" headers={["Integration", "Tool", "State", "Health", "Last jobs sync", "Last applications sync", "Write-backs waiting", "Actions"]}>
              {list.value.items.map((i) => (
                <tr key={i.id} data-integration={i.id} data-health={i.health.state}>
                  <td>
                    <Link href={`/integrations/${encodeURIComponent(i.id)}`}>{i.display_name}</Link>
                    <br />
                    <code class="muted">{i.id}</code>
                  </td>
                  <td>
                    {i.tool} <span class="muted">{i.category ?? ""}</span>
                  </td>
                  <td>
                    <StateBadge state={i.state} />
                  </td>
                  <td>
                    <HealthNote health={i.health} />
                  </td>
                  <td>{lastSync(i.last_sync.jobs)}</td>
                  <td>{lastSync(i.last_sync.applications)}</td>
                  <td>{i.pending_write_backs}</td>
                  <td class="actions">
                    <button type="button" class="secondary small" onClick={() => setPanel({ kind: "relink", integration: i })} aria-label={`Reconnect ${i.display_name}`}>
                      Reconnect
                    </button>
                    <button type="button" class="danger small" onClick={() => setPanel({ kind: "delete", integration: i })} aria-label={`Delete ${i.display_name}`}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </DataTable>
      )}
    </>
  );
}
