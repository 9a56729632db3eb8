/**
 * The fast local receiver of `npm run bench -- webhooks-out`, in a process of its own (forked with
 * an IPC channel): plain node:http, every delivery's Standard Webhooks signature checked with one
 * HMAC (node:crypto) against the secret of the path it was sent to, the first arrival of each
 * `webhook-id` per path kept with its time, duplicates and bad signatures counted. Answers 200 with
 * no body. Paths without a secret (the floor's) are only counted.
 *
 * IPC: `{ cmd: "secret", path, secret }` → `{ ok }`; `{ cmd: "count" }` → `{ valid, invalid, duplicates }`;
 * `{ cmd: "arrivals" }` → `{ arrivals: [path, id, at][] }` (at: ms since the epoch, sub-ms); `{ cmd: "reset" }`.
 */
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const keys = new Map<string, Buffer>();
let arrivals = new Map<string, number>();
let valid = 0;
let invalid = 0;
let duplicates = 0;
let counted = 0;

const now = () => performance.timeOrigin + performance.now();

function verified(key: Buffer, headers: Record<string, string | string[] | undefined>, body: string): boolean {
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const signatures = headers["webhook-signature"];
  if (typeof id !== "string" || typeof timestamp !== "string" || typeof signatures !== "string") return false;
  const expected = `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
  return signatures.split(" ").includes(expected);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const at = now();
    const path = req.url ?? "/";
    const key = keys.get(path);
    if (!key) counted++;
    else if (!verified(key, req.headers, Buffer.concat(chunks).toString("utf8"))) invalid++;
    else {
      const seen = `${path} ${String(req.headers["webhook-id"])}`;
      if (arrivals.has(seen)) duplicates++;
      else arrivals.set(seen, at);
      valid++;
    }
    res.writeHead(200, { "content-length": "0" }).end();
  });
});
server.keepAliveTimeout = 60_000;

process.on("message", (msg: { cmd: string; path?: string; secret?: string }) => {
  if (msg.cmd === "secret") {
    keys.set(msg.path!, Buffer.from(msg.secret!.replace(/^whsec_/, ""), "base64"));
    process.send!({ ok: true });
  } else if (msg.cmd === "count") process.send!({ valid, invalid, duplicates, counted });
  else if (msg.cmd === "arrivals") {
    process.send!({ arrivals: [...arrivals].map(([k, at]) => [...k.split(" "), at]) });
  } else if (msg.cmd === "reset") {
    arrivals = new Map();
    valid = invalid = duplicates = counted = 0;
    process.send!({ ok: true });
  }
});
process.on("disconnect", () => process.exit(0));

server.listen(Number(process.argv[2] ?? 0), "127.0.0.1", () => {
  process.send!({ port: (server.address() as AddressInfo).port });
});
