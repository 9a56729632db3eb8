import type { Hirebridge } from "hirebridge/client";
import { useState } from "preact/hooks";
import { DataTable, ErrorNote, Link, StateBadge, fmtDate, useLoad } from "../ui.js";

type Settings = Awaited<ReturnType<Hirebridge["assessment"]["settings"]>>;
type Order = Awaited<ReturnType<Hirebridge["assessment"]["receivedOrders"]>>["items"][number];

/** The upstream's category of integrations that take orders by nature (they cannot be turned off). */
const ASSESSMENT = "ASSESSMENT";
const ORDERS_PER_PAGE = 20;

/** Whether the integration takes orders: said for an ASSESSMENT integration, a switch for any other. */
function TakesOrders(props: { hb: Hirebridge; id: string; settings: Settings; onChanged: (s: Settings) => void }) {
  const { hb, id, settings } = props;
  // What was asked, shown while the answer is awaited (a failure shows the saved state again).
  const [asked, setAsked] = useState<boolean | null>(null);
  const [error, setError] = useState<unknown>(null);
  if (settings.category === ASSESSMENT) {
    return <p>This is an assessment integration: it always takes orders for your interview packages.</p>;
  }
  const toggle = async (takes: boolean) => {
    setAsked(takes);
    setError(null);
    try {
      props.onChanged(await hb.assessment.updateSettings(id, { takes_orders: takes }));
    } catch (err) {
      setError(err);
    } finally {
      setAsked(null);
    }
  };
  return (
    <>
      <p class="check">
        <input type="checkbox" id="takes-orders" checked={asked ?? settings.takes_orders} disabled={asked !== null} onChange={(e) => void toggle(e.currentTarget.checked)} />
        <label for="takes-orders">Take assessment orders from this ATS (your interview packages are published to it)</label>
      </p>
      <ErrorNote error={error} />
    </>
  );
}

/** The packages the ATS offers its recruiters (as the ATS has them), and the republish. */
function Packages(props: { hb: Hirebridge; id: string; settings: Settings; onPublished: () => void }) {
  const { hb, id, settings } = props;
  const [tick, setTick] = useState(0);
  const packages = useLoad(async () => (await hb.assessment.packages.list(id)).data.packages, [id, tick]);
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const republish = async () => {
    setBusy(true);
    setError(null);
    setNote("");
    try {
      const done = await hb.assessment.packages.publish(id);
      setNote(`Published ${done.packages.length} package${done.packages.length === 1 ? "" : "s"} at ${fmtDate(done.published_at)}.`);
      setTick((n) => n + 1);
      props.onPublished();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const list = packages.value ?? [];
  return (
    <>
      <div class="page-head">
        <h3 id="packages-title">Packages in the ATS</h3>
        <button type="button" class="secondary small" disabled={busy} onClick={() => void republish()}>
          Republish packages
        </button>
      </div>
      <p class="muted">
        Your positions in state template, offered to recruiters as video interviews. Last published: {fmtDate(settings.published_at)}.
      </p>
      <p role="status" class="status">
        {note}
      </p>
      <ErrorNote error={error} />
      <ErrorNote error={packages.error} />
      {packages.value && list.length === 0 && <p>The ATS offers no package yet: create a position in state template, then republish.</p>}
      {list.length > 0 && (
        <DataTable caption="Packages the ATS offers" headers={["Package", "Type", "Updated in the ATS"]}>
          {list.map((p) => (
            <tr key={p.id} data-package={p.id}>
              <td>{p.name}</td>
              <td>{p.type?.replace(/_/g, " ").toLowerCase() ?? "–"}</td>
              <td>{fmtDate(p.updated_at)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}

/** One order: when, whether Hirebridge took it, the candidate (a link to its row) and package by name, the result. */
function OrderRow(props: { order: Order }) {
  const o = props.order;
  const who = o.candidate_name ?? (o.candidate_id ? "a candidate" : null);
  return (
    <tr data-order={o.order_id} data-status={o.status} data-result={o.result_status}>
      <td>{fmtDate(o.created_at)}</td>
      <td>
        <StateBadge state={o.status} />
        {o.inline && <span class="muted"> career page</span>}
      </td>
      <td>
        {who && o.position_id && o.candidate_id ? (
          <Link href={`/positions/${o.position_id}?candidate=${o.candidate_id}`}>{who}</Link>
        ) : (
          <span class="muted">none</span>
        )}
      </td>
      <td>{o.package_name ?? <code>{o.package_id}</code>}</td>
      <td>{o.status === "accepted" ? <StateBadge state={o.result_status.toLowerCase()} /> : "–"}</td>
      <td>{fmtDate(o.updated_at)}</td>
      <td class="error-text">{o.message ?? ""}</td>
    </tr>
  );
}

/** The orders Hirebridge received, newest first, a page at a time (`next`). */
function Orders(props: { hb: Hirebridge; id: string }) {
  const { hb, id } = props;
  // Cursors of the pages walked so far: the last is this page's.
  const [pages, setPages] = useState<string[]>([]);
  const after = pages.at(-1);
  const query = after ? { limit: ORDERS_PER_PAGE, after } : { limit: ORDERS_PER_PAGE };
  // The newest page follows orders as they come; older pages hold still.
  const page = useLoad(() => hb.assessment.receivedOrders(id, query), [id, after], after ? null : 5000);
  const items = page.value?.items ?? [];
  const next = page.value?.next;
  return (
    <>
      <h3 id="orders-title">Orders</h3>
      <ErrorNote error={page.error} />
      {page.value && items.length === 0 && <p>{after ? "No older order." : "No order yet: recruiters order a package on a candidate in the ATS."}</p>}
      {items.length > 0 && (
        <DataTable
          caption="Orders received from the ATS, newest first"
          headers={["Received", "Order", "Candidate", "Package", "Result", "Updated", "Why rejected"]}
        >
          {items.map((o) => (
            <OrderRow order={o} key={o.id} />
          ))}
        </DataTable>
      )}
      {(pages.length > 0 || next) && (
        <div class="row pager">
          <button type="button" class="secondary small" disabled={pages.length === 0} onClick={() => setPages(pages.slice(0, -1))}>
            Newer
          </button>
          <button type="button" class="secondary small" disabled={!next} onClick={() => next && setPages([...pages, next])}>
            Older
          </button>
        </div>
      )}
    </>
  );
}

/**
 * An integration's assessment channel (docs/assessments.md): whether it takes orders, the packages
 * its ATS offers with the republish, and the orders received with their candidates and results.
 */
export function AssessmentPanel(props: { hb: Hirebridge; id: string }) {
  const { hb, id } = props;
  const settings = useLoad(() => hb.assessment.settings(id), [id]);
  const [changed, setChanged] = useState<Settings | null>(null);
  const s = changed ?? settings.value;
  return (
    <section aria-labelledby="assessment-title" role="tabpanel" id="panel-assessment" class="assessment">
      <h2 id="assessment-title">Assessment orders</h2>
      <p class="muted">
        Recruiters order an interview package on a candidate in the ATS; each order becomes a candidate of yours with an interview,
        and its result goes back on the order.
      </p>
      <ErrorNote error={settings.error} />
      {s && (
        <>
          <TakesOrders hb={hb} id={id} settings={s} onChanged={setChanged} />
          {s.takes_orders && (
            <Packages
              hb={hb}
              id={id}
              settings={s}
              onPublished={() => {
                setChanged(null);
                settings.reload();
              }}
            />
          )}
          <Orders hb={hb} id={id} />
        </>
      )}
    </section>
  );
}
