import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * The kernel's range of ephemeral ports (Linux: /proc; 32768–60999 by default elsewhere), from
 * which it picks the local port of every outgoing connection.
 */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (low && high) return [low, high];
  } catch {
    // not Linux: the default range
  }
  return [32768, 60999];
}

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });

/**
 * A port free on 127.0.0.1 right now (for tests and benches that start several listening
 * services), chosen below the ephemeral range: a port the kernel handed out for `listen(0)` and
 * that was then closed can be taken, before the service binds it, as the local port of any
 * outgoing connection on the machine (a database client's, say), which failed a CI run with
 * EADDRINUSE. Below the range only another listener can take it.
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  const from = 10_000;
  const span = Math.max(low - from, 1_000);
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = from + Math.floor(Math.random() * span);
    if (port < 65536 && (await canListen(port))) return port;
  }
  throw new Error("no free port below the ephemeral range");
}
