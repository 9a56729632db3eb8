import { eq, sql } from "drizzle-orm";
import type { Logger } from "pino";
import type { Db } from "../../../shared/db/database.js";
import type { IntegrationLookup } from "../../../shared/ports/integrations.js";
import { upstreamCallFailures } from "../sync.tables.js";

/** An upstream call that failed, as its caller reports it. */
export type UpstreamFailure = {
  integrationId: string;
  source: "proxy" | "sync" | "write-back";
  /** The call without ids, e.g. `GET /ats/jobs`. */
  operation: string;
  /** The upstream's HTTP status; null when it never answered. */
  status: number | null;
  error: string;
  requestId?: string | undefined;
  writeBackId?: string | undefined;
  /** The caller's organisation (proxy calls): recorded only when the integration is that organisation's. */
  orgId?: string | undefined;
};

/** The same call failing again within this long adds to the first one's `count` instead of a row. */
const WINDOW_MS = 10_000;
/** Calls remembered at once; beyond it a failure is written as its own row. */
const MAX_OPEN = 1_000;

type Open = { id: Promise<string | null>; extra: number };

type FailureLogDeps = { db: Db; integrations: Pick<IntegrationLookup, "ownerOf">; logger: Logger };

/** The first of a run of failures, as a row of the trail of its integration's owner; null when it is not recorded. */
async function insertFailure(deps: FailureLogDeps, f: UpstreamFailure): Promise<string | null> {
  try {
    const owner = await deps.integrations.ownerOf(f.integrationId);
    // An integration nobody here owns, or another organisation's, gets no trail from this caller.
    if (!owner || (f.orgId !== undefined && owner !== f.orgId)) return null;
    const [row] = await deps.db
      .insert(upstreamCallFailures)
      .values({
        integrationId: f.integrationId,
        orgId: owner,
        source: f.source,
        operation: f.operation.slice(0, 200),
        upstreamStatus: f.status,
        error: f.error.slice(0, 1000),
        requestId: f.requestId?.slice(0, 200) ?? null,
        writeBackId: f.writeBackId ?? null,
      })
      .returning({ id: upstreamCallFailures.id });
    return row?.id ?? null;
  } catch (err) {
    deps.logger.warn({ err, integration_id: f.integrationId }, "could not record a failed upstream call");
    return null;
  }
}

/**
 * Records failed upstream calls for the activity trail. Only failures reach it (a successful
 * proxied request writes nothing), and a failure storm stays small: the first failure of a call
 * (integration, source, operation, status, write-back) in a WINDOW_MS window is a row, the others
 * in the window are counted in memory and added to that row once, when the window closes. Nothing
 * here throws or delays its caller beyond the insert: a failure that cannot be recorded is logged.
 */
export function createUpstreamFailureLog(deps: FailureLogDeps) {
  const open = new Map<string, Open>();
  const timers = new Set<NodeJS.Timeout>();
  const pending = new Set<Promise<unknown>>();

  const track = <T>(p: Promise<T>): Promise<T> => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
    return p;
  };

  async function close(key: string): Promise<void> {
    const slot = open.get(key);
    open.delete(key);
    const id = await slot?.id;
    if (!slot || !id || slot.extra === 0) return;
    try {
      await deps.db
        .update(upstreamCallFailures)
        .set({ count: sql`${upstreamCallFailures.count} + ${slot.extra}`, lastAt: new Date() })
        .where(eq(upstreamCallFailures.id, id));
    } catch (err) {
      deps.logger.warn({ err }, "could not count repeated failed upstream calls");
    }
  }

  /** Records `f` (fire and forget); `flushed()` waits for what is under way. */
  function record(f: UpstreamFailure): void {
    const key = [f.integrationId, f.orgId ?? "", f.source, f.operation, f.status ?? "none", f.writeBackId ?? ""].join("\u0000");
    const slot = open.get(key);
    if (slot) {
      slot.extra++;
      return;
    }
    const id = track(insertFailure(deps, f));
    if (open.size >= MAX_OPEN) return;
    open.set(key, { id, extra: 0 });
    const timer = setTimeout(() => {
      timers.delete(timer);
      void track(close(key));
    }, WINDOW_MS);
    timer.unref();
    timers.add(timer);
  }

  /** Writes every count still in memory (the app is closing, or a test wants to read them). */
  async function flush(): Promise<void> {
    for (const t of timers) clearTimeout(t);
    timers.clear();
    await Promise.all([...open.keys()].map((k) => track(close(k))));
    await Promise.all(pending);
  }

  return { record, flush };
}
export type UpstreamFailureLog = ReturnType<typeof createUpstreamFailureLog>;
