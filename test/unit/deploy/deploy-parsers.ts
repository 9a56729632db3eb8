/** Small readers for the deployment files, just enough for the tests that keep them in step with the code. */

export type ComposeService = {
  image?: string;
  build?: { context: string; dockerfile: string; target?: string };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test?: string[] };
};

/** The services, with environment values as strings (as Compose passes them). */
export function composeServices(doc: { services: Record<string, ComposeService> }): Record<string, ComposeService> {
  const out: Record<string, ComposeService> = {};
  for (const [name, s] of Object.entries(doc.services)) {
    const environment = s.environment ? Object.fromEntries(Object.entries(s.environment).map(([k, v]) => [k, String(v)])) : undefined;
    out[name] = { ...s, ...(environment ? { environment } : {}) };
  }
  return out;
}

/** Compose's `${VAR:-default}` with VAR unset: the value each variable takes out of the box. */
export function interpolateDefaults(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => [
      k,
      v.replace(/\$\{([A-Z0-9_]+)(?::?-([^}]*))?\}/g, (_m, _name: string, fallback: string | undefined) => fallback ?? ""),
    ]),
  );
}

export type DockerStage = { name: string; from: string; instructions: { op: string; args: string }[] };

/** Stages of a Dockerfile: `FROM image AS name` and the instructions under it (continuations joined). */
export function dockerStages(dockerfile: string): DockerStage[] {
  const lines = dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const stages: DockerStage[] = [];
  for (const line of lines) {
    const [op, ...rest] = line.split(/\s+/);
    const args = rest.join(" ");
    if (op!.toUpperCase() === "FROM") {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      stages.push({ name: m?.[2] ?? String(stages.length), from: m?.[1] ?? args, instructions: [] });
    } else if (stages.length) {
      stages.at(-1)!.instructions.push({ op: op!.toUpperCase(), args });
    }
  }
  return stages;
}

/** nginx upstream blocks (their `server` addresses) and which upstream each `listen` port proxies to. */
export function nginxUpstreams(conf: string): { upstreams: Record<string, string[]>; listens: Record<string, string> } {
  const upstreams: Record<string, string[]> = {};
  for (const m of conf.matchAll(/upstream\s+(\S+)\s*\{([^}]*)\}/g)) {
    upstreams[m[1]!] = [...m[2]!.matchAll(/^\s*server\s+(\S+)/gm)].map((s) => s[1]!);
  }
  const listens: Record<string, string> = {};
  for (const m of conf.matchAll(/server\s*\{[^{}]*listen\s+(\d+);[^{}]*location\s+\/\s*\{[^}]*proxy_pass\s+http:\/\/([^;/\s]+)/g)) {
    listens[m[1]!] = m[2]!;
  }
  return { upstreams, listens };
}
