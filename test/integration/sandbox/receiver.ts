/**
 * A tiny loopback webhook receiver: records every POST (path, headers, raw body) and answers with
 * the status `respond` picks, so tests can make deliveries fail on purpose, or with a status and a
 * JSON body (an assessment vendor's 422 `{message}` or inline `{assessment_url}`).
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

/** A status (the body is `{received}`), or a status with the JSON body to answer. */
export type Respond = (r: Received, n: number) => number | { status: number; body: unknown };

export type Receiver = {
  /** Receiver base URL: the sandbox appends `/<event type>`. */
  url: string;
  received: Received[];
  /** Resolves with the first (new or past) delivery matching `match`. */
  waitFor(match: (r: Received) => boolean, timeoutMs?: number): Promise<Received>;
  close(): Promise<void>;
};

export async function startReceiver(respond: Respond = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: { match: (r: Received) => boolean; resolve: (r: Received) => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const r: Received = { path: req.url ?? "", headers: req.headers, raw, body: JSON.parse(raw) as Received["body"] };
      received.push(r);
      const answer = respond(r, received.length);
      const status = typeof answer === "number" ? answer : answer.status;
      const body = typeof answer === "number" ? { received: status === 200 } : answer.body;
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
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
  respond?: Respond,
): Promise<{ receiver: Receiver; sandbox: TestSandbox }> {
  const receiver = await startReceiver(respond);
  const sandbox = await startSandbox({ ...opts, webhookUrl: receiver.url });
  t.after(async () => {
    await sandbox.close();
    await receiver.close();
  });
  return { receiver, sandbox };
}
