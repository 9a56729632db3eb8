import type { Server } from "node:http";
import { Server as NetServer } from "node:net";

/** How long a connection that is idle when the drain starts may still bring one more request. */
export const IDLE_GRACE_MS = 500;

/**
 * Drains a listening HTTP server without failing a request: it stops accepting connections (a load
 * balancer sees "connection refused" and sends the request to another instance), answers every
 * request still arriving on an open keep-alive connection in full with `Connection: close`, and
 * resolves once every connection has ended.
 *
 * Neither of the shortcuts does this. `http.Server#close()` cuts idle keep-alive connections at
 * once, so a client that picked one a moment earlier for its next request gets a reset; Fastify's
 * `close()` also answers such requests 503. Connections still idle after `idleGraceMs` are closed
 * then: by that time an active client has sent its next request on them and been told to go.
 */
export async function drainConnections(server: Server, opts: { idleGraceMs?: number } = {}): Promise<void> {
  if (!server.listening) return;
  // Runs before the app's handler, while the headers can still be set.
  server.prependListener("request", (_req, res) => {
    res.setHeader("connection", "close");
  });
  const ended = new Promise<void>((resolve) => {
    // net.Server#close: stop listening, keep the open connections; the callback runs when they have all ended.
    NetServer.prototype.close.call(server, () => resolve());
  });
  const timer = setTimeout(() => server.closeIdleConnections(), opts.idleGraceMs ?? IDLE_GRACE_MS);
  try {
    await ended;
  } finally {
    clearTimeout(timer);
  }
}
