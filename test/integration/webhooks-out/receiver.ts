import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One delivery as the receiver saw it, checked with the official `standardwebhooks` package (not our code). */
export type Received = {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  path: string;
  type: string;
  data: Record<string, unknown>;
  /** Which of the receiver's secrets verified it (indexes into the secrets it was given). */
  verifiedWith: number[];
  at: number;
};

export type Answer = (delivery: Received, nth: number) => number | Promise<number>;

export type Receiver = {
  url: string;
  deliveries: Received[];
  /** The secrets deliveries are verified with (each on its own). */
  secrets: string[];
  /** How it answers (default 200); `nth` counts the deliveries of the same `webhook-id` so far, from 1. */
  answer: Answer;
  /** Resolves with the deliveries once `done` holds for them (fails after `timeoutMs`). */
  waitFor(done: (deliveries: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
};

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** A customer's webhook receiver on 127.0.0.1 that verifies every delivery with `standardwebhooks`. */
export async function startReceiver(secrets: string[] = []): Promise<Receiver> {
  const waiters = new Set<() => void>();
  const receiver: Omit<Receiver, "url" | "close" | "waitFor"> = { deliveries: [], secrets, answer: () => 200 };
  const server = createServer(async (req, res) => {
    const body = await bodyOf(req);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    const verifiedWith = receiver.secrets.flatMap((secret, i) => {
      try {
        new Webhook(secret).verify(body, headers);
        return [i];
      } catch {
        return [];
      }
    });
    const parsed = JSON.parse(body || "{}") as { type?: string; data?: Record<string, unknown> };
    const delivery: Received = {
      id: headers["webhook-id"] ?? "",
      timestamp: headers["webhook-timestamp"] ?? "",
      signature: headers["webhook-signature"] ?? "",
      body,
      path: req.url ?? "",
      type: parsed.type ?? "",
      data: parsed.data ?? {},
      verifiedWith,
      at: Date.now(),
    };
    receiver.deliveries.push(delivery);
    const nth = receiver.deliveries.filter((d) => d.id === delivery.id).length;
    const status = await receiver.answer(delivery, nth);
    res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : `no: ${status}`);
    for (const wake of waiters) wake();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks`,
    waitFor(done: (deliveries: Received[]) => boolean, timeoutMs = 10_000) {
      return new Promise<Received[]>((resolve, reject) => {
        const check = () => {
          if (!done(receiver.deliveries)) return;
          cleanup();
          resolve(receiver.deliveries);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `the receiver did not get what was awaited in ${timeoutMs} ms; it got ${receiver.deliveries.map((d) => d.type).join(", ") || "nothing"}`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
