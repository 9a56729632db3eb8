import type { Hirebridge, ServiceAccount, ServiceAccountScope } from "hirebridge/client";
import { useState } from "preact/hooks";
import { DataTable, ErrorNote, StateBadge, fmtDate, useLoad } from "../ui.js";

/** The client id and secret of an account just created or rotated: shown this once. */
function SecretOnce(props: { account: ServiceAccount; secret: string; onDone: () => void }) {
  return (
    <section class="panel secret" aria-labelledby="sa-secret-title">
      <h2 id="sa-secret-title">Client secret of {props.account.name}</h2>
      <p>
        <strong>Shown only now.</strong> Store it where the machine reads it; Hirebridge keeps only a hash of it.
      </p>
      <p>
        Client id <code>{props.account.client_id}</code>
        <br />
        Client secret <code data-secret>{props.secret}</code>
      </p>
      <button type="button" onClick={props.onDone}>
        I have stored the secret
      </button>
    </section>
  );
}

/** The form that creates an account: its name and its limits (none: every API, reads and writes). */
function CreateForm(props: { hb: Hirebridge; onCreated: (a: ServiceAccount, secret: string) => void }) {
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<ServiceAccountScope[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const toggle = (scope: ServiceAccountScope, on: boolean) => setScopes((s) => (on ? [...s, scope] : s.filter((x) => x !== scope)));
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { client_secret, ...account } = await props.hb.serviceAccounts.create({ name, scopes });
      setName("");
      setScopes([]);
      props.onCreated(account, client_secret);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="panel" aria-labelledby="sa-create-title">
      <h2 id="sa-create-title">Create a service account</h2>
      <form onSubmit={submit} class="form-grid">
        <label for="sa-name">Name</label>
        <input id="sa-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <fieldset class="types">
          <legend>Limits (none checked: every API, reads and writes)</legend>
          <label class="check">
            <input type="checkbox" checked={scopes.includes("read")} onChange={(e) => toggle("read", e.currentTarget.checked)} />
            <code>read</code> reads only
          </label>
          <label class="check">
            <input
              type="checkbox"
              checked={scopes.includes("recruiting")}
              onChange={(e) => toggle("recruiting", e.currentTarget.checked)}
            />
            <code>recruiting</code> the recruiting API only
          </label>
        </fieldset>
        <div class="row">
          <button type="submit" disabled={busy}>
            {busy ? "Creating…" : "Create service account"}
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
    </section>
  );
}

type Act = "rotate" | "revoke";

function AccountRow(props: { a: ServiceAccount; busy: boolean; onAct: (a: ServiceAccount, act: Act) => void }) {
  const { a } = props;
  const [confirming, setConfirming] = useState(false);
  return (
    <tr data-account={a.id} data-revoked={String(a.revoked_at !== null)}>
      <td>
        {a.name}
        <div>
          <code>{a.client_id}</code>
        </div>
      </td>
      <td>{a.scopes.length ? a.scopes.join(", ") : "none"}</td>
      <td>
        <StateBadge state={a.revoked_at ? "revoked" : "active"} />
        {a.revoked_at && <div class="muted">since {fmtDate(a.revoked_at)}</div>}
      </td>
      <td>{a.last_used_at ? fmtDate(a.last_used_at) : "never"}</td>
      <td>
        {!a.revoked_at && (
          <div class="row">
            <button type="button" class="secondary small" disabled={props.busy} onClick={() => props.onAct(a, "rotate")}>
              Rotate secret
            </button>
            {confirming ? (
              <button type="button" class="danger small" disabled={props.busy} onClick={() => props.onAct(a, "revoke")}>
                Confirm revoke
              </button>
            ) : (
              <button type="button" class="secondary small" onClick={() => setConfirming(true)}>
                Revoke
              </button>
            )}
          </div>
        )}
      </td>
    </tr>
  );
}

/**
 * `/service-accounts`: the organisation's confidential clients for machines (docs/token-service.md,
 * Service accounts): create (the secret shown once), rotate, revoke after a confirmation, last used.
 */
export function ServiceAccountsPage(props: { hb: Hirebridge }) {
  const { hb } = props;
  const list = useLoad(() => hb.serviceAccounts.list(), []);
  const [shown, setShown] = useState<{ account: ServiceAccount; secret: string } | null>(null);
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const onAct = async (a: ServiceAccount, what: Act) => {
    setBusy(true);
    setError(null);
    try {
      if (what === "rotate") {
        const { client_secret, ...account } = await hb.serviceAccounts.rotateSecret(a.id);
        setShown({ account, secret: client_secret });
        setStatus(`Secret of ${a.name} rotated: the old one no longer works.`);
      } else {
        await hb.serviceAccounts.revoke(a.id);
        setStatus(`${a.name} revoked: its next token request fails; tokens it holds expire as usual.`);
      }
      list.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <h1>Service accounts</h1>
      <p>
        Credentials for machines: a service account obtains access tokens with the OAuth client credentials grant (
        <code>hirebridge login --client-id … --client-secret-stdin</code>, or the SDK's <code>clientId</code> and <code>clientSecret</code>).
      </p>
      <p role="status" class="status">
        {status}
      </p>
      <ErrorNote error={error ?? list.error} />
      {shown && <SecretOnce account={shown.account} secret={shown.secret} onDone={() => setShown(null)} />}
      {list.value &&
        (list.value.items.length ? (
          <DataTable caption="Service accounts" headers={["Name", "Limits", "State", "Last used", "Actions"]}>
            {list.value.items.map((a) => (
              <AccountRow key={a.id} a={a} busy={busy} onAct={onAct} />
            ))}
          </DataTable>
        ) : (
          <p>No service accounts yet.</p>
        ))}
      <CreateForm
        hb={hb}
        onCreated={(account, secret) => {
          setShown({ account, secret });
          setStatus(`${account.name} created.`);
          list.reload();
        }}
      />
    </>
  );
}
