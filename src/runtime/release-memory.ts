import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type Gc = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;

/**
 * Gives back what start-up used and no longer needs, once every service listens. Loading the
 * services allocates far more than they keep: each ES module of drizzle-orm has Node hand its
 * 178 KB package.json `exports` to JavaScript again (~60 MB of large strings per wave, three waves
 * in `serve api`), PGlite's first start runs initdb in a second, throw-away Postgres. V8 collects
 * that garbage but keeps the emptied pages for reuse, and its memory reducer, which would return
 * them, did not run in 20 s of idling (`serve api` stayed at 137 MB). One memory-reducing full
 * collection (V8's "last resort" flavour: it compacts and releases the pooled pages) at this point
 * took `serve api` from 140 to 106 MB. It costs one pause before the first request (two compacting
 * collections, 45 + 50 ms in `serve api` on a loaded 2-vCPU machine, per --trace-gc) and nothing
 * after: a busy process grows its heap again as it needs.
 *
 * `gc` is V8's own extension, exposed to a throw-away context only (not as a global of this one).
 */
export function releaseUnusedMemory(): void {
  setFlagsFromString("--expose-gc");
  let gc: Gc;
  try {
    gc = runInNewContext("gc") as Gc;
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
  gc({ type: "major", execution: "sync", flavor: "last-resort" });
}

/** Bytes V8 holds for the old generation (every space but the young one): what a burst leaves behind. */
export function oldGenerationBytes(): number {
  let bytes = 0;
  for (const space of getHeapSpaceStatistics()) if (!space.space_name.startsWith("new")) bytes += space.space_size;
  return bytes;
}

export type IdleReleaseOptions = {
  /** How long nothing must have been answered or started. */
  idleMs?: number;
  /** How far the old generation must have grown since the last release for another to be worth it. */
  minGrowthBytes?: number;
  /** The release itself (replaceable for tests). */
  release?: () => void;
  /** The old generation's size (replaceable for tests). */
  heapBytes?: () => number;
};

/**
 * Gives back what a burst of requests left behind, once the process has been idle a while: no
 * request in flight on any of `servers`, none started or finished for `idleMs`, and the old
 * generation grown by `minGrowthBytes` since the last release. V8 keeps the heap a burst grew to
 * (its memory reducer did not run in 20 s of idling, see above): the sandbox served a full scan of
 * 100,000 applications at ~145 MB and stayed at ~260 MB after it.
 *
 * Why the growth condition: a last-resort collection also shrinks the young generation to its
 * least, and a process that serves again after it pays for that with scavenges until V8 has grown
 * it back. Released after every pause of ordinary traffic (which leaves the old generation about
 * where it was), the proxy spent about half again as much time in GC per request (CPU profiles of
 * the proxy bench, whose hop idles between its load windows: GC 1.47x writev's time with the
 * release, 0.93x without). A burst worth giving back grows the old generation by tens of MB.
 *
 * Answers a function that stops watching.
 */
export function releaseMemoryWhenIdle(servers: Server[], opts: IdleReleaseOptions = {}): () => void {
  const { idleMs = 2000, minGrowthBytes = 32 * 1024 * 1024, release = releaseUnusedMemory, heapBytes = oldGenerationBytes } = opts;
  let inFlight = 0;
  let lastActivity = 0;
  let released = true;
  let afterRelease = heapBytes();
  const onRequest = (_req: IncomingMessage, res: ServerResponse) => {
    inFlight++;
    released = false;
    lastActivity = Date.now();
    res.once("close", () => {
      inFlight--;
      lastActivity = Date.now();
    });
  };
  for (const s of servers) s.on("request", onRequest);
  const timer = setInterval(
    () => {
      if (released || inFlight > 0 || Date.now() - lastActivity < idleMs) return;
      released = true; // this burst is decided either way
      if (heapBytes() - afterRelease < minGrowthBytes) return;
      release();
      afterRelease = heapBytes();
    },
    Math.max(100, idleMs / 4),
  );
  timer.unref();
  return () => {
    clearInterval(timer);
    for (const s of servers) s.off("request", onRequest);
  };
}
