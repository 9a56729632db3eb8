/**
 * A deliberately slowed hop, for showing that the CI guard (bench/guard.ts) fails: preloaded by the
 * bench harness (`--import bench/slow-hop.mjs`, see slowHopFlags in lib.ts) into the processes of
 * OUR hop only (never a floor, never the upstream) when BENCH_SLOW_HOP_US is set, it spins that many
 * µs (busy, on the clock) before every HTTP request the process serves (every node:http server's
 * "request" event, so Fastify's too). No production code knows about it.
 */
import http from "node:http";

const us = Number(process.env["BENCH_SLOW_HOP_US"] ?? 0);
if (us > 0) {
  const emit = http.Server.prototype.emit;
  // A busy wait on the monotonic clock: while it runs the thread is on a core, so it adds about
  // `us` of CPU (less when the machine preempts it). Not getrusage's thread time: the kernel
  // samples that at its tick (4 ms), so a spin on it overshoots by milliseconds.
  const spin = () => {
    const end = performance.now() + us / 1000;
    while (performance.now() < end);
  };
  http.Server.prototype.emit = function (event, ...args) {
    if (event === "request") spin();
    return emit.call(this, event, ...args);
  };
}
