import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { EventType } from "../../contracts/webhooks-out/events.js";
import { verifyWebhook, WebhookVerificationError } from "../../client/index.js";
import { CliError, EXIT } from "../cli-errors.js";
import type { CliContext } from "../context.js";

export type ListenOptions = {
  forwardTo: string;
  events: EventType[] | undefined;
  port: number;
  host: string;
  publicUrl: string | undefined;
};

/** The headers a delivery carries that the local server needs to verify it itself. */
const FORWARDED = ["webhook-id", "webhook-timestamp", "webhook-signature", "content-type", "user-agent"];

async function rawBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** POSTs the delivery, byte for byte and with its signature headers, to the local server; its status (502 when it cannot be reached). */
async function forward(to: string, req: IncomingMessage, body: Buffer): Promise<number> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) if (typeof req.headers[name] === "string") headers[name] = req.headers[name];
  try {
    const res = await fetch(to, {
      method: "POST",
      headers,
      body: new Uint8Array(body),
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 502;
  }
}

/**
 * One delivery: verified with the endpoint's secret (what is not Hirebridge's is refused), then
 * forwarded; Hirebridge gets the local server's status, so a failure there is retried on the
 * schedule like any endpoint's.
 */
function handler(ctx: CliContext, opts: ListenOptions, secret: () => string) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const body = await rawBody(req);
    let event: Awaited<ReturnType<typeof verifyWebhook>>;
    try {
      event = await verifyWebhook(body.toString("utf8"), req.headers as Record<string, string>, secret());
    } catch (err) {
      const why = err instanceof WebhookVerificationError ? err.message : "unreadable";
      ctx.out.note(`refused a delivery that did not verify: ${why}`);
      res.writeHead(400).end();
      return;
    }
    const status = await forward(opts.forwardTo, req, body);
    if (ctx.out.json) ctx.io.stdout.write(`${JSON.stringify({ id: event.id, type: event.type, forwarded: status })}\n`);
    else ctx.io.stdout.write(`${new Date().toISOString()}  ${event.type.padEnd(26)} ${event.id}  → ${status}\n`);
    res.writeHead(status >= 200 && status < 300 ? 200 : status === 502 ? 502 : status).end();
  };
}

/**
 * Keeps the temporary endpoint alive while this runs: a keep-alive at a third of the time left
 * before each expiry (so two may fail before it lapses). A process that dies without deleting the
 * endpoint stops them, and the server's sweep deletes it after its idle time.
 */
export function keepAlive(
  ctx: Pick<CliContext, "out">,
  ping: () => Promise<{ expires_at: string | null }>,
  expiresAt: string | null,
): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = (until: string | null) => {
    if (stopped || !until) return;
    const delay = Math.max(1000, Math.min(300_000, (Date.parse(until) - Date.now()) / 3));
    timer = setTimeout(() => {
      ping().then(
        (e) => arm(e.expires_at),
        (err: unknown) => {
          ctx.out.note(`keeping the temporary endpoint alive failed (trying again): ${String(err)}`);
          arm(until);
        },
      );
    }, delay);
    timer.unref();
  };
  arm(expiresAt);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Resolves on Ctrl-C, SIGTERM or SIGHUP (a closed terminal). The handlers stay until `release()`:
 * a second signal while the endpoint is being deleted (a wrapper passing one on) does not kill the
 * process halfway.
 */
function interrupted(): { stopped: Promise<void>; release(): void } {
  let resolve!: () => void;
  const stopped = new Promise<void>((r) => (resolve = r));
  const onSignal = () => resolve();
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  const release = () => {
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
  };
  return { stopped, release };
}

/**
 * `hirebridge webhooks listen --forward-to <url>`, as the Stripe CLI's `listen`: a listener on this
 * machine, a temporary endpoint of the organisation pointing at it (deleted on exit), and every
 * event verified and forwarded to the local server with its original signature headers (the
 * secret is printed for it).
 */
export async function listen(ctx: CliContext, opts: ListenOptions): Promise<number> {
  try {
    new URL(opts.forwardTo);
  } catch {
    throw new CliError("--forward-to must be a URL, e.g. http://localhost:3000/hooks", EXIT.USAGE);
  }
  const hb = await ctx.client();
  // Listening for signals from the start: one that comes while the endpoint is created still ends here.
  const signals = interrupted();
  let secret = "";
  const server = createServer(handler(ctx, opts, () => secret));
  server.listen(opts.port, opts.host);
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  const url = opts.publicUrl ?? `http://${host}:${port}/`;
  const endpoint = await hb.webhookEndpoints
    .create({
      url,
      description: "hirebridge webhooks listen (temporary)",
      temporary: true,
      ...(opts.events ? { event_types: opts.events } : {}),
    })
    .catch((err: unknown) => {
      server.close();
      signals.release();
      throw err;
    });
  secret = endpoint.secret;
  const alive = keepAlive(ctx, () => hb.webhookEndpoints.keepAlive(endpoint.id), endpoint.expires_at);
  ctx.out.note(`Ready: your organisation's events come to ${url} and go on to ${opts.forwardTo} (Ctrl-C to stop).`);
  ctx.out.note(`Their signing secret, for ${opts.forwardTo} to verify them: ${endpoint.secret}`);
  await signals.stopped;
  alive.stop();
  await hb.webhookEndpoints
    .delete(endpoint.id)
    .catch((err: unknown) => ctx.out.note(`could not delete the temporary endpoint ${endpoint.id}: ${String(err)}`));
  server.closeAllConnections();
  server.close();
  signals.release();
  ctx.out.note("Stopped; the temporary endpoint is deleted.");
  return EXIT.OK;
}
