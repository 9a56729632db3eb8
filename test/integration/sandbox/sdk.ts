/** The official SDK pointed at a test sandbox, and a helper to page a list to its end. */
import { Kombo } from "@kombo-api/sdk";
import type { TestSandbox } from "../../helpers/sandbox.js";

/** `integrationId` null: no X-Integration-Id (the general and connect endpoints). */
export function sdkFor(sandbox: TestSandbox, integrationId: string | null = sandbox.demoIntegrationId, apiKey = sandbox.apiKey): Kombo {
  return new Kombo({ api_key: apiKey, ...(integrationId ? { integration_id: integrationId } : {}), server_url: sandbox.url });
}

/** Walks every page of an SDK paginated list; returns all results and the number of pages. */
export async function collectPages<T>(
  first: AsyncIterable<{ result: { data: { results: T[]; next: string | null } } }>,
): Promise<{ results: T[]; pages: number }> {
  const results: T[] = [];
  let pages = 0;
  for await (const page of first) {
    pages++;
    results.push(...page.result.data.results);
  }
  return { results, pages };
}

/** The sandbox's admin surface, as JSON. */
export async function admin<T = unknown>(
  sandbox: TestSandbox,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${sandbox.origin}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}
