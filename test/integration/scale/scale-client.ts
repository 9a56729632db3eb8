/**
 * What the scale-out test does to the cluster from outside, through public surfaces only: the demo
 * login (token endpoint), webhook deliveries to a chosen proxy (the sandbox's own signed bytes),
 * the sandbox's admin surface and API, and the shared Redis.
 */
import { Redis } from "ioredis";
import { TEST_REDIS_URL } from "../../helpers/db.js";
import type { CapturedWebhook, Cluster, Instance } from "./cluster.js";

export const DEMO_ORG_ID = "6d3f1e2a-9b4c-4f7e-8a1d-2c5b7e9f0a13";
/** The sandbox's API key in the run contract's defaults (the cluster sets no other). */
const SANDBOX_API_KEY = "sandbox-api-key";
/** The proxy's Redis namespace (src/services/proxy/cache/redis-cache.ts). */
export const PROXY_CACHE_PREFIX = "hirebridge:proxy:";

export type WebhookAnswer = { status: number; body: { received?: boolean; processed?: boolean; message?: string } };

/** The demo user's access token, from the token process's password grant. */
export async function demoLogin(cluster: Cluster): Promise<string> {
  const res = await fetch(`${cluster.authUrl}/protocol/openid-connect/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "password", client_id: "hirebridge", username: "demo", password: "demo-password" }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token) throw new Error(`demo login failed: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Delivers an event the sandbox sent, byte for byte with its signature, to one proxy's receiver. */
export async function deliver(proxy: Instance, event: CapturedWebhook): Promise<WebhookAnswer> {
  const res = await fetch(`${proxy.origin}/api/v1/webhooks/upstream/${event.kind}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-upstream-signature": event.signature },
    body: new Uint8Array(event.raw),
  });
  return { status: res.status, body: (await res.json()) as WebhookAnswer["body"] };
}

export async function json<T>(
  url: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(url, {
    method: init.method ?? "GET",
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      ...init.headers,
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: (text ? JSON.parse(text) : null) as T };
}

/** A new ATS integration of the demo organisation in the sandbox (it sends integration-created). */
export async function createIntegration(cluster: Cluster, applications: number): Promise<string> {
  const res = await json<{ id: string }>(`${cluster.sandboxOrigin}/sandbox/integrations`, {
    method: "POST",
    body: { org_id: DEMO_ORG_ID, applications },
  });
  if (res.status !== 201) throw new Error(`creating a sandbox integration failed: ${res.status} ${res.text}`);
  return res.body.id;
}

export async function sandboxConfig(cluster: Cluster, patch: Record<string, unknown>): Promise<void> {
  const res = await json(`${cluster.sandboxOrigin}/sandbox/config`, { method: "PUT", body: patch });
  if (res.status !== 200) throw new Error(`sandbox config failed: ${res.status} ${res.text}`);
}

type Stage = { id: string; name: string | null };
type UpstreamJob = { id: string; remote_deleted_at: string | null; stages?: Stage[] | null };
type UpstreamApplication = {
  job_id: string | null;
  current_stage_id: string | null;
  remote_deleted_at: string | null;
  candidate: { email_addresses?: { email_address?: string | null }[] | null } | null;
};

/** Every record of a sandbox list, page by page (250 a page), read with the upstream API key. */
async function listAll<T>(cluster: Cluster, integrationId: string, path: string): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | null = null;
  do {
    const query: URLSearchParams = new URLSearchParams({ page_size: "250", include_deleted: "true", ...(cursor ? { cursor } : {}) });
    const res: { status: number; text: string; body: { data: { results: T[]; next: string | null } } } = await json(
      `${cluster.sandboxApi}${path}?${query}`,
      {
        headers: { authorization: `Bearer ${SANDBOX_API_KEY}`, "x-integration-id": integrationId },
      },
    );
    if (res.status !== 200) throw new Error(`sandbox ${path} failed: ${res.status} ${res.text}`);
    out.push(...res.body.data.results);
    cursor = res.body.data.next;
  } while (cursor);
  return out;
}

/**
 * How many candidates a full sync of the integration must produce, counted from the upstream's own
 * data: live applications with an email address, sitting in their live job's "AI Interview" stage
 * (the stage a synced position takes by default, SYNC_DEFAULT_CANDIDATE_STAGE).
 */
export async function expectedCandidates(cluster: Cluster, integrationId: string): Promise<number> {
  const jobs = await listAll<UpstreamJob>(cluster, integrationId, "/ats/jobs");
  const aiStage = new Map<string, string>();
  for (const job of jobs) {
    const stage = job.stages?.find((s) => s.name?.toLowerCase() === "ai interview");
    if (stage && !job.remote_deleted_at) aiStage.set(job.id, stage.id);
  }
  const apps = await listAll<UpstreamApplication>(cluster, integrationId, "/ats/applications");
  return apps.filter(
    (a) =>
      !a.remote_deleted_at &&
      a.job_id !== null &&
      aiStage.get(a.job_id) === a.current_stage_id &&
      (a.candidate?.email_addresses ?? []).some((e) => e.email_address?.includes("@")),
  ).length;
}

/** The shared Redis, for looking at (and deleting single) keys of the proxies' cache. */
export const openRedis = () => new Redis(TEST_REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
