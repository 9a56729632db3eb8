/**
 * A tiny loopback webhook receiver: records every POST (path, headers, raw body) and answers with
 * the status `respond` picks, so tests can make deliveries fail on purpose.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestContext } from "node:test";
import { startSandbox, type StartSandboxOptions, type TestSandbox } from "../../helpers/sandbox.js";

export type Received = {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: { id: string; type: string; data: Record<string, unknown> };
};

export type Receiver = {
  /** Receiver base URL: the sandbox appends `/<event type>`. */
  url: string;
  received: Received[];
  /** Resolves with the first (new or past) delivery matching `match`. */
  waitFor(match: (r: Received) => boolean, timeoutMs?: number): Promise<Received>;
  close(): Promise<void>;
};

export async function startReceiver(respond: (r: Received, n: number) => number = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: { match: (r: Received) => boolean; resolve: (r: Received) => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const r: Received = { path: req.url ?? "", headers: req.headers, raw, body: JSON.parse(raw) as Received["body"] };
      received.push(r);
      const status = respond(r, received.length);
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ received: status === 200 }));
      if (status === 200) {
        for (const w of [...waiters]) {
          if (w.match(r)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(r);
          }
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    waitFor(match, timeoutMs = 5000) {
      const past = received.find(match);
      if (past) return Promise.resolve(past);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no matching webhook arrived in time")), timeoutMs);
        waiters.push({
          match,
          resolve: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
        });
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // the sandbox keeps delivery connections alive
      }),
  };
}

/** A sandbox delivering its webhooks to a new receiver (answering with `respond`); both closed when the test ends. */
export async function sandboxWithReceiver(
  t: TestContext,
  opts: Omit<StartSandboxOptions, "webhookUrl"> = {},
  respond?: (r: Received, n: number) => number,
): Promise<{ receiver: Receiver; sandbox: TestSandbox }> {
  const receiver = await startReceiver(respond);
  const sandbox = await startSandbox({ ...opts, webhookUrl: receiver.url });
  t.after(async () => {
    await sandbox.close();
    await receiver.close();
  });
  return { receiver, sandbox };
}
