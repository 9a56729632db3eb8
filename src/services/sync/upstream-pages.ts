import type { Application, Job, UpstreamPage } from "../../contracts/upstream/index.js";
import type { Db, Queryable } from "../../shared/db/database.js";
import type { LinkedPosition, RecruitingStore } from "../../shared/ports/recruiting-sync.js";
import type { AtsReader } from "./ats-reader.js";
import { matchStage } from "./stage-match.js";
import type { SyncRunRow } from "./sync.tables.js";

// The sync engine's reading half: the upstream's pages of jobs and applications, each with the
// resume point its write stores (sync-engine.ts writes them).

/** Records per upstream page (the upstream's maximum). */
const PAGE_SIZE = 250;
/** Jobs whose stages are read in one request (keeps the `ids` filter, and the URL, short). */
const JOBS_PER_LISTING = 50;
/** Pages of the next chunk's listing read while the current chunk's are (concatAhead). */
const NEXT_LISTING_PAGES = 2;

/** A position whose candidate stage's applications are listed: position, job, stage (null: not a stage of the job), language. */
type ChunkEntry = { p: string; j: string; s: string | null; l: string };
/**
 * Resume point of an applications run, stored as the run's page cursor: `after` the last position
 * of the chunk being (or last) listed; while a chunk is listed, the chunk itself and the cursor of
 * its next page, so a resumed run repeats exactly the same query.
 */
type ApplicationsCursor = { after: string; chunk?: ChunkEntry[]; cursor?: string };

/** A page read ahead of the writes, with what its transaction stores besides. */
export type ReadPage<T> = { results: T[]; resume: string | null };
/** A page of a full run's applications: its chunk of positions, and how many of them have no stage to list (counted once). */
type ApplicationPage = ReadPage<Application> & { chunk: ChunkEntry[]; skippedPositions: number };

/**
 * Pages fetched ahead of the writes. One was not enough: the upstream, this process and the
 * database share the machine's cores, and a page that came back while its predecessor was still
 * being written left the upstream idle until the next request went out.
 */
export const READ_AHEAD = 3;

/**
 * Reads up to `depth` items ahead of the consumer: while it writes a page, the next ones are
 * already being fetched (the engine's two halves, upstream reads and database writes, overlap).
 * Hands over every item fetched by then at once (at least one): when the writes fall behind, the
 * pages waiting are written together, one statement and one commit (with its WAL flush) instead
 * of one each. An async generator runs one `next()` at a time, so the reads stay in order.
 */
export async function* readAhead<T>(source: AsyncGenerator<T>, depth = READ_AHEAD): AsyncGenerator<T[]> {
  const pending: { next: Promise<IteratorResult<T>>; settled: boolean }[] = [];
  const pull = () => {
    const item = { next: source.next(), settled: false };
    // A failure is handled where it is awaited, in its turn.
    item.next.then(
      () => (item.settled = true),
      () => {},
    );
    pending.push(item);
  };
  try {
    for (let i = 0; i < depth; i++) pull();
    for (;;) {
      const first = await pending.shift()!.next;
      if (first.done) return;
      const batch = [first.value];
      let ended = false;
      while (pending[0]?.settled) {
        const item = await pending.shift()!.next;
        if (item.done) {
          ended = true;
          break;
        }
        batch.push(item.value);
      }
      if (!ended) for (let i = 0; i < batch.length; i++) pull();
      yield batch;
      if (ended) return;
    }
  } finally {
    // The consumer stopped early (cancelled or failed) or the source ended: let the reads in
    // flight settle, then close the source.
    await Promise.allSettled(pending.map((p) => p.next));
    await source.return(undefined);
  }
}

/**
 * Starts reading `source` at once, up to `depth` items ahead of whoever iterates `items()`.
 * `close()` lets the reads in flight settle and closes the source.
 */
function prefetch<T>(source: AsyncGenerator<T>, depth: number) {
  const pending: Promise<IteratorResult<T>>[] = [];
  const pull = () => {
    const next = source.next();
    next.catch(() => {}); // a failure is handled where it is awaited, in its turn
    pending.push(next);
  };
  for (let i = 0; i < depth; i++) pull();
  return {
    async *items(): AsyncGenerator<T> {
      for (;;) {
        const item = await pending.shift()!;
        if (item.done) return;
        pull();
        yield item.value;
      }
    },
    async close(): Promise<void> {
      await Promise.allSettled(pending.splice(0));
      await source.return(undefined);
    },
  };
}

/**
 * The items of each source in turn, in order, while the source after the current one is already
 * started and has read up to `depth` items. For a full sync's chunk listings, which do not depend
 * on each other: each listing is read page after page (a page's cursor comes with the page before
 * it), so one listing at a time kept the upstream waiting on this process and the database for
 * every page; two at once keep it busy. A failure of the next source is thrown in its turn, after
 * the current source's items.
 */
export async function* concatAhead<T>(sources: AsyncGenerator<AsyncGenerator<T>>, depth: number): AsyncGenerator<T> {
  const start = () => {
    const started = sources.next().then((s) => (s.done ? null : prefetch(s.value, depth)));
    started.catch(() => {}); // awaited in its turn
    return started;
  };
  let upcoming = start();
  let current: ReturnType<typeof prefetch<T>> | null = null;
  try {
    for (;;) {
      current = await upcoming;
      if (!current) return;
      upcoming = start();
      yield* current.items();
      await current.close();
      current = null;
    }
  } finally {
    // Stopped early (cancelled or failed) or done: the reads in flight settle before the sources close.
    await current?.close();
    await (await upcoming.catch(() => null))?.close();
    await sources.return(undefined);
  }
}

/** What the page reader reads from: the upstream and the recruiting store's linked positions. */
export type PageReaderDeps = { reader: AtsReader; store: RecruitingStore<Queryable, Db>; db: Db; pageSize?: number | undefined };

/** The page reader's context: its deps, with the page size as the query sends it. */
type PageReading = Omit<PageReaderDeps, "pageSize"> & { pageSize: string };

function baseQuery(ctx: PageReading, r: SyncRunRow): Record<string, string> {
  return { page_size: ctx.pageSize, ...(r.updatedAfter ? { updated_after: r.updatedAfter.toISOString() } : {}) };
}

async function* jobPages(ctx: PageReading, r: SyncRunRow): AsyncGenerator<ReadPage<Job>> {
  // Deleted jobs are read too: their positions become inactive.
  const query = { ...baseQuery(ctx, r), include_deleted: "true" };
  let cursor = r.pageCursor;
  for (;;) {
    const page = await ctx.reader.page<Job>(r.integrationId, "/ats/jobs", cursor ? { ...query, cursor } : query);
    yield { results: page.results, resume: page.next };
    if (!page.next) return;
    cursor = page.next;
  }
}

/** The upstream stage id of each position's candidate stage (null when the job has no such stage or is gone). */
async function candidateStages(
  ctx: PageReading,
  r: SyncRunRow,
  positions: { id: string; upstreamJobIdId: string; candidateStage: string | null }[],
): Promise<Map<string, string | null>> {
  const stages = new Map<string, string | null>();
  const byJob = new Map(positions.map((p) => [p.upstreamJobIdId, p]));
  let cursor: string | null = null;
  do {
    const page: { results: Job[]; next: string | null } = await ctx.reader.page<Job>(r.integrationId, "/ats/jobs", {
      ids: [...byJob.keys()].join(","),
      include_deleted: "true",
      page_size: String(PAGE_SIZE),
      ...(cursor ? { cursor } : {}),
    });
    for (const job of page.results) {
      const p = byJob.get(job.id);
      if (p) stages.set(p.id, job.remote_deleted_at ? null : (matchStage(job.stages ?? [], p.candidateStage)?.id ?? null));
    }
    cursor = page.next;
  } while (cursor);
  return stages;
}

/** The next chunk of linked positions after `after`, with their candidate stages. */
async function nextChunk(ctx: PageReading, r: SyncRunRow, after: string | null): Promise<ChunkEntry[]> {
  const positions = await ctx.store.linkedPositions(ctx.db, r.orgId, r.integrationId, { after, limit: JOBS_PER_LISTING });
  if (!positions.length) return [];
  const stages = await candidateStages(ctx, r, positions);
  return positions.map((p) => ({ p: p.id, j: p.upstreamJobIdId, s: stages.get(p.id) ?? null, l: p.acceptedLanguages[0] ?? "en" }));
}

/**
 * The applications in the candidate stages of the linked positions, chunk by chunk (positions
 * ordered by id, `JOBS_PER_LISTING` at a time, never all of them at once): one listing per chunk
 * filtered by its jobs and stages, page by page. Each page carries the resume point its
 * transaction stores: the chunk and the next page's cursor, or the chunk's end. The listings of
 * two chunks are read at once (concatAhead): the pages still come out in order.
 */
function applicationPages(ctx: PageReading, r: SyncRunRow): AsyncGenerator<ApplicationPage> {
  return concatAhead(chunkListings(ctx, r, parseApplicationsCursor(r.pageCursor)), NEXT_LISTING_PAGES);
}

/** The listing of each chunk in turn, from the resume point: the chunk being listed first, from its cursor. */
async function* chunkListings(
  ctx: PageReading,
  r: SyncRunRow,
  resume: ApplicationsCursor | null,
): AsyncGenerator<AsyncGenerator<ApplicationPage>> {
  if (resume?.chunk) yield chunkPages(ctx, r, resume.chunk, resume.cursor ?? null, 0);
  let after = resume?.after ?? null;
  for (;;) {
    const chunk = await nextChunk(ctx, r, after);
    if (!chunk.length) return;
    // A candidate stage that is not a stage of its job (or a job gone): counted as skipped, once.
    yield chunkPages(ctx, r, chunk, null, chunk.filter((c) => !c.s).length);
    after = chunk[chunk.length - 1]!.p;
  }
}

/** One chunk's listing, page by page from `cursor`, each page with its resume point. */
async function* chunkPages(
  ctx: PageReading,
  r: SyncRunRow,
  chunk: ChunkEntry[],
  cursor: string | null,
  skippedPositions: number,
): AsyncGenerator<ApplicationPage> {
  const last = chunk[chunk.length - 1]!.p;
  const listed = chunk.filter((c) => c.s);
  const query = {
    ...baseQuery(ctx, r),
    job_ids: [...new Set(listed.map((c) => c.j))].join(","),
    current_stage_ids: [...new Set(listed.map((c) => c.s!))].join(","),
  };
  for (;;) {
    const page = listed.length
      ? await ctx.reader.page<Application>(r.integrationId, "/ats/applications", cursor ? { ...query, cursor } : query)
      : { results: [], next: null };
    const next: ApplicationsCursor = page.next ? { after: last, chunk, cursor: page.next } : { after: last };
    yield { results: page.results, resume: JSON.stringify(next), chunk, skippedPositions };
    skippedPositions = 0;
    if (!page.next) return;
    cursor = page.next;
  }
}

/**
 * An incremental run's applications: only those changed since `updated_after`, in one listing
 * across all jobs (no walk over every position), each page with the linked positions of the jobs
 * it names. Resume point: the next page's cursor. The next page is requested before this one's
 * positions are looked up, so the lookup does not hold the reads up.
 */
async function* changedApplicationPages(
  ctx: PageReading,
  r: SyncRunRow,
): AsyncGenerator<ReadPage<Application> & { positions: Map<string, LinkedPosition> }> {
  const query = baseQuery(ctx, r);
  const read = (cursor: string | null) =>
    ctx.reader.page<Application>(r.integrationId, "/ats/applications", cursor ? { ...query, cursor } : query);
  let next: Promise<UpstreamPage<Application>> | null = read(parseChangedCursor(r.pageCursor));
  try {
    while (next) {
      const page: UpstreamPage<Application> = await next;
      next = page.next ? read(page.next) : null;
      next?.catch(() => {}); // awaited in its turn; a failure is handled there
      const jobIds = [...new Set(page.results.map((a) => a.job_id).filter((j): j is string => !!j))];
      const positions = await ctx.store.positionsOfJobs(ctx.db, r.orgId, r.integrationId, jobIds);
      yield {
        results: page.results,
        resume: page.next ? JSON.stringify({ changed: page.next }) : null,
        positions: new Map(positions.map((p) => [p.upstreamJobIdId, p])),
      };
    }
  } finally {
    // Stopped early (cancelled or failed): the read in flight settles before the reader closes.
    await next?.catch(() => {});
  }
}

/** The three readers of a sync run's pages: its jobs, a full run's applications, an incremental run's changed applications. */
export function createPageReader(deps: PageReaderDeps) {
  const ctx: PageReading = { ...deps, pageSize: String(deps.pageSize ?? PAGE_SIZE) };
  return {
    jobPages: (r: SyncRunRow) => jobPages(ctx, r),
    applicationPages: (r: SyncRunRow) => applicationPages(ctx, r),
    changedApplicationPages: (r: SyncRunRow) => changedApplicationPages(ctx, r),
  };
}

/** An applications resume point; one of an older shape starts the run over (its writes are idempotent). */
function parseApplicationsCursor(raw: string | null): ApplicationsCursor | null {
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<ApplicationsCursor>;
    return typeof parsed.after === "string" ? (parsed as ApplicationsCursor) : null;
  } catch {
    return null;
  }
}

/** An incremental applications run's resume point: the cursor of the next page of changes. */
function parseChangedCursor(raw: string | null): string | null {
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as { changed?: unknown };
    return typeof parsed.changed === "string" ? parsed.changed : null;
  } catch {
    return null;
  }
}
