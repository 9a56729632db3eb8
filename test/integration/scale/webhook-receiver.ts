/**
 * The scale-out test's webhook receiver, standing in for "the proxies behind a load balancer" as
 * the sandbox's delivery target: it keeps every event with its exact bytes and signature, so the
 * test can deliver each genuine event to whichever proxy it likes, as often as it likes.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** An event the sandbox sent: the exact bytes and signature, ready to be delivered again. */
export type CapturedWebhook = { kind: string; id: string; type: string; data: Record<string, unknown>; raw: Buffer; signature: string };

/** A receiver standing in for "the proxies behind a load balancer": it keeps every event the sandbox sends. */
export async function startReceiver(webhooks: CapturedWebhook[]): Promise<{ server: Server; url: string }> {
  const read = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req
        .on("data", (c: Buffer) => chunks.push(c))
        .on("end", () => resolve(Buffer.concat(chunks)))
        .on("error", reject);
    });
  const server = createServer((req, res) => {
    read(req).then(
      (raw) => {
        const kind = (req.url ?? "").split("?")[0]!.split("/").at(-1) ?? "";
        const body = JSON.parse(raw.toString("utf8")) as { id: string; type: string; data: Record<string, unknown> };
        const signature = String(req.headers["x-upstream-signature"] ?? req.headers["x-kombo-signature"] ?? "");
        webhooks.push({ kind, id: body.id, type: body.type, data: body.data, raw, signature });
        res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
      },
      () => res.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/upstream` };
}
