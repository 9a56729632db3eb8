import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { setFlagsFromString } from "node:v8";
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

/**
 * Gives back what a burst of requests left behind, once the process has been idle a while: no
 * request in flight on any of `servers` and none started or finished for `idleMs`. V8 keeps the
 * heap a burst grew to (its memory reducer did not run in 20 s of idling, see above): the sandbox
 * served a full scan of 100,000 applications at ~145 MB and stayed at ~260 MB after it. One
 * collection per burst, while nothing is being answered (`release`, replaceable for tests). Answers
 * a function that stops watching.
 */
export function releaseMemoryWhenIdle(servers: Server[], idleMs = 2000, release: () => void = releaseUnusedMemory): () => void {
  let inFlight = 0;
  let lastActivity = 0;
  let released = true;
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
      released = true;
      release();
    },
    Math.max(100, idleMs / 4),
  );
  timer.unref();
  return () => {
    clearInterval(timer);
    for (const s of servers) s.off("request", onRequest);
  };
}
