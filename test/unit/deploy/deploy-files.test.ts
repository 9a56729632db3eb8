/**
 * The Dockerfile, deploy/compose.yaml and the nginx balancer cannot run here (no container engine),
 * so this test keeps them in step with the code: commands the CLI serves, variables the ConfigSchema
 * parses (with the values it accepts), ports equal to its defaults, health checks on /healthz, two
 * instances of each scaled service behind the balancer, and an image that runs as a non-root user on
 * Node 24 with production dependencies only (which must be enough for everything src/ imports).
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { describe, test } from "node:test";
import { parse } from "yaml";
import { SERVICE_ORDER } from "../../../src/runtime/stack.js";
import { loadConfig, serviceUrls } from "../../../src/shared/config.js";
import { ConfigSchema } from "../../../src/runtime/config.js";
import { composeServices, dockerStages, interpolateDefaults, nginxUpstreams, type ComposeService } from "./deploy-parsers.js";

const root = new URL("../../../", import.meta.url);
const text = (path: string) => readFileSync(new URL(path, root), "utf8");
const compose = parse(text("deploy/compose.yaml"), { merge: true }) as { services: Record<string, ComposeService> };
const services = composeServices(compose);
const defaultOf = (key: keyof typeof ConfigSchema.properties) => ConfigSchema.properties[key].default as unknown;
const ours = Object.entries(services).filter(([, s]) => s.image?.startsWith("hirebridge:"));
const PORT_VAR = { token: "AUTH_PORT", api: "API_PORT", proxy: "PROXY_PORT", sandbox: "SANDBOX_PORT" } as const;
const serviceOf = (s: ComposeService) => s.command?.[1] as keyof typeof PORT_VAR;

describe("deploy/compose.yaml", () => {
  test("runs the infrastructure, the sandbox, two instances each of api and proxy, and a load balancer", () => {
    assert.deepEqual(Object.keys(services).sort(), [
      "api-1",
      "api-2",
      "keycloak",
      "lb",
      "postgres",
      "proxy-1",
      "proxy-2",
      "redis",
      "sandbox",
    ]);
    assert.deepEqual(ours.map(([name]) => name).sort(), ["api-1", "api-2", "proxy-1", "proxy-2", "sandbox"]);
    for (const [name, s] of ours) {
      assert.deepEqual(s.build, { context: "..", dockerfile: "Dockerfile", target: "runtime" }, name);
      assert.ok(existsSync(new URL(s.build!.dockerfile, new URL(`deploy/${s.build!.context}/`, root))), `${name}: the Dockerfile exists`);
    }
  });

  test("every service command is one the CLI serves", () => {
    for (const [name, s] of ours) {
      assert.equal(s.command?.length, 2, name);
      assert.equal(s.command?.[0], "serve", name);
      assert.ok(SERVICE_ORDER.includes(serviceOf(s)), `${name}: serve ${serviceOf(s)}`);
    }
    assert.deepEqual(ours.map(([, s]) => serviceOf(s)).sort(), ["api", "api", "proxy", "proxy", "sandbox"]);
  });

  test("every variable set is a ConfigSchema key, and the values parse", () => {
    for (const [name, s] of ours) {
      const env = interpolateDefaults(s.environment ?? {});
      for (const key of Object.keys(env)) assert.ok(key in ConfigSchema.properties, `${name}: ${key} is not in ConfigSchema`);
      // Throws (listing every problem) if a value is of the wrong type or shape.
      const config = loadConfig(ConfigSchema, env);
      assert.ok(config.DATABASE_URL && config.REDIS_URL && config.AUTH_ISSUER, `${name} runs in the production shape`);
      assert.equal(config.HOST, "0.0.0.0", `${name} listens beyond the container's loopback`);
    }
  });

  test("ports are the ConfigSchema defaults, inside the network and on the host", () => {
    for (const [name, s] of ours) {
      const variable = PORT_VAR[serviceOf(s)];
      assert.equal(Number(s.environment?.[variable]), defaultOf(variable), `${name}: ${variable}`);
    }
    const published = (name: string) => (services[name]!.ports ?? []).map(String).sort();
    assert.deepEqual(
      published("lb"),
      [
        `${String(defaultOf("PROXY_PORT"))}:${String(defaultOf("PROXY_PORT"))}`,
        `${String(defaultOf("API_PORT"))}:${String(defaultOf("API_PORT"))}`,
      ].sort(),
    );
    assert.deepEqual(published("sandbox"), [`${String(defaultOf("SANDBOX_PORT"))}:${String(defaultOf("SANDBOX_PORT"))}`]);
    assert.deepEqual(published("keycloak"), [`${String(defaultOf("AUTH_PORT"))}:${String(defaultOf("AUTH_PORT"))}`]);
    for (const name of ["api-1", "api-2", "proxy-1", "proxy-2"])
      assert.equal(services[name]!.ports, undefined, `${name} is reached through the balancer`);
  });

  test("the api and proxy instances trust the Keycloak realm of the export, imported at start", () => {
    const realm = JSON.parse(text("deploy/keycloak/hirebridge-realm.json")) as { realm: string };
    const kc = services["keycloak"]!;
    assert.match(kc.image!, /^quay\.io\/keycloak\/keycloak:26(\.|$)/);
    assert.deepEqual(kc.command, ["start-dev", "--import-realm"]);
    assert.ok(kc.volumes?.includes("./keycloak/hirebridge-realm.json:/opt/keycloak/data/import/hirebridge-realm.json:ro"));
    const issuer = `${String(kc.environment?.["KC_HOSTNAME"])}/realms/${realm.realm}`;
    for (const [name, s] of ours.filter(([, x]) => serviceOf(x) !== "sandbox")) {
      assert.equal(s.environment?.["AUTH_ISSUER"], issuer, name);
      assert.equal(s.environment?.["AUTH_AUDIENCE"], defaultOf("AUTH_CLIENT_ID"), name);
      assert.equal(new URL(issuer).port, String(defaultOf("AUTH_PORT")));
    }
  });

  test("every service has a health check; ours ask readiness (start-up order), the balancer's /healthz", () => {
    for (const [name, s] of Object.entries(services)) assert.ok(s.healthcheck?.test, `${name} has a health check`);
    for (const [name, s] of ours)
      assert.deepEqual(s.healthcheck?.test, ["CMD", "node", "deploy/healthcheck.mjs", "--ready", serviceOf(s)], name);
    const lb = services["lb"]!.healthcheck!.test!.join(" ");
    for (const port of [defaultOf("PROXY_PORT"), defaultOf("API_PORT")])
      assert.ok(lb.includes(`http://127.0.0.1:${String(port)}/healthz`), lb);
    assert.ok(services["keycloak"]!.healthcheck!.test!.join(" ").includes("/health/ready"));
  });

  test("the instances of a service are identical, and the balancer spreads over exactly them", () => {
    const strip = (s: ComposeService) => JSON.stringify(s);
    assert.equal(strip(services["api-1"]!), strip(services["api-2"]!));
    assert.equal(strip(services["proxy-1"]!), strip(services["proxy-2"]!));
    const lb = services["lb"]!;
    assert.ok(lb.volumes?.includes("./nginx/nginx.conf:/etc/nginx/nginx.conf:ro"));
    const nginx = nginxUpstreams(text("deploy/nginx/nginx.conf"));
    const api = `${String(defaultOf("API_PORT"))}`;
    const proxy = `${String(defaultOf("PROXY_PORT"))}`;
    assert.deepEqual(nginx.listens, { [proxy]: "hirebridge_proxy", [api]: "hirebridge_api" });
    assert.deepEqual(nginx.upstreams["hirebridge_api"], [`api-1:${api}`, `api-2:${api}`]);
    assert.deepEqual(nginx.upstreams["hirebridge_proxy"], [`proxy-1:${proxy}`, `proxy-2:${proxy}`]);
    for (const name of ["api-1", "api-2", "proxy-1", "proxy-2"]) assert.equal(lb.depends_on?.[name]?.condition, "service_healthy", name);
  });

  test("the balancer lets bodies through up to above the services' limit, so oversized ones get the services' 413", () => {
    const size = /client_max_body_size\s+(\d+)m;/.exec(text("deploy/nginx/nginx.conf"));
    assert.ok(size, "client_max_body_size is set in megabytes");
    assert.ok(Number(size[1]) * 1024 * 1024 > (defaultOf("BODY_LIMIT_BYTES") as number));
  });

  test("the sandbox delivers webhooks through the balancer to the proxies' receivers", () => {
    const env = interpolateDefaults(services["sandbox"]!.environment ?? {});
    const own = serviceUrls(loadConfig(ConfigSchema, {})).webhookReceiver; // http://127.0.0.1:8000/api/v1/webhooks/upstream
    const url = new URL(env["SANDBOX_WEBHOOK_URL"]!);
    assert.equal(`${url.hostname}:${url.port}`, `lb:${String(defaultOf("PROXY_PORT"))}`);
    assert.equal(url.pathname, new URL(own).pathname);
  });
});

describe("Dockerfile", () => {
  const stages = dockerStages(text("Dockerfile"));
  const runtime = stages.at(-1)!;
  const all = (stage: (typeof stages)[number], op: string) => stage.instructions.filter((i) => i.op === op).map((i) => i.args);

  test("is multi-stage on Node 24, ending in the runtime stage", () => {
    assert.deepEqual(
      stages.map((s) => s.name),
      ["prod-deps", "build", "check", "runtime"],
    );
    for (const s of stages) assert.match(s.from, /^node:24-[a-z0-9.-]+$/, s.name);
    // The runtime is pinned by the `node` devDependency (npm scripts, the bin's handover) and the image;
    // `engines` names the Node that may run npm and the launcher, so npm does not warn on it.
    const pkg = JSON.parse(text("package.json")) as { engines: { node: string }; devDependencies: Record<string, string> };
    assert.match(pkg.devDependencies["node"]!, /^24\./);
    assert.match(text("bin/runtime.js"), /const REQUIRED_MAJOR = 24;/);
    assert.equal(pkg.engines.node, ">=20");
  });

  test("installs production dependencies only, and the runtime takes them from that stage", () => {
    const prodDeps = stages.find((s) => s.name === "prod-deps")!;
    assert.ok(all(prodDeps, "RUN").some((r) => /\bnpm ci\b[^&]*--omit=dev/.test(r)));
    assert.ok(all(runtime, "COPY").includes("--from=prod-deps /app/node_modules ./node_modules"));
    assert.ok(!all(runtime, "COPY").some((c) => c.startsWith("--from=check")), "nothing of the full install reaches the runtime");
    assert.deepEqual(
      all(runtime, "RUN").filter((r) => /npm (ci|install)/.test(r)),
      [],
    );
    // The console's static build, made in the build stage.
    assert.ok(all(runtime, "COPY").includes("--from=build /app/console/dist ./console/dist"));
  });

  test("the runtime runs compiled JavaScript from the build stage: no sources, no tsx or esbuild", () => {
    const pkg = JSON.parse(text("package.json")) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      scripts: Record<string, string>;
    };
    for (const tool of ["tsx", "esbuild", "typescript"])
      assert.equal(pkg.dependencies[tool], undefined, `${tool} is not a production dependency`);
    assert.ok(pkg.devDependencies["tsx"], "tsx runs the sources in development and tests");
    const build = stages.find((s) => s.name === "build")!;
    assert.ok(all(build, "RUN").includes("npm run build"));
    assert.match(pkg.scripts["build"]!, /^tsc -p tsconfig\.build\.json\b/);
    assert.ok(all(runtime, "COPY").includes("--from=build /app/dist ./dist"));
    assert.ok(!all(runtime, "COPY").some((c) => /^src\b/.test(c)), "no TypeScript sources in the image");
    // The lock file agrees: nothing of tsx's tree is installed by `npm ci --omit=dev`.
    const lock = JSON.parse(text("package-lock.json")) as { packages: Record<string, { dev?: boolean }> };
    for (const name of ["node_modules/tsx", "node_modules/esbuild"]) assert.equal(lock.packages[name]?.dev, true, name);
    assert.match(pkg.scripts["start"]!, /^node [^|;&]*dist\/cli\/main\.js serve all$/, "npm start is one node process on dist/");
    // npm start checks its ports, data directory and services first (a clear message before any build), then builds.
    assert.match(pkg.scripts["prestart"]!, /^tsx src\/cli\/main\.ts serve --check all && npm run build$/);
  });

  test("everything src/ imports at run time is a production dependency", () => {
    const pkg = JSON.parse(text("package.json")) as { dependencies: Record<string, string> };
    const missing = new Set<string>();
    for (const file of readdirSync(new URL("src/", root), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))) {
      const source = text(`src/${file}`);
      // Type-only imports vanish at run time.
      for (const m of source.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+"([^".][^"]*)"|import\("([^".][^"]*)"\)/gm)) {
        const spec = (m[1] ?? m[2])!;
        const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!;
        if (!spec.startsWith("node:") && !builtinModules.includes(name) && !pkg.dependencies[name]) missing.add(`${file}: ${spec}`);
      }
    }
    assert.deepEqual([...missing], []);
  });

  test("runs as a non-root user, with the CLI as entrypoint and `serve all` as the default command", () => {
    const users = all(runtime, "USER");
    assert.equal(users.length, 1);
    assert.ok(!["root", "0", "0:0"].includes(users[0]!), `USER ${users[0]}`);
    const ops = runtime.instructions.map((i) => i.op);
    assert.ok(ops.lastIndexOf("RUN") < ops.indexOf("USER"), "nothing runs as root after USER");
    assert.deepEqual(JSON.parse(all(runtime, "ENTRYPOINT")[0]!), [
      "node",
      "--max-semi-space-size=8",
      "--v8-pool-size=2",
      "dist/cli/main.js",
    ]);
    assert.deepEqual(JSON.parse(all(runtime, "CMD")[0]!), ["serve", "all"]);
    assert.match(all(runtime, "HEALTHCHECK")[0]!, /CMD \["node", "deploy\/healthcheck\.mjs"\]$/);
  });

  test("copies only paths that exist and that .dockerignore lets through", () => {
    const ignored = text(".dockerignore")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith("#"));
    for (const must of ["node_modules", ".git", ".env"]) assert.ok(ignored.includes(must), `.dockerignore: ${must}`);
    for (const copy of all(runtime, "COPY").filter((c) => !c.startsWith("--from"))) {
      for (const path of copy.split(/\s+/).slice(0, -1)) {
        assert.ok(existsSync(new URL(path, root)), `COPY ${path}`);
        assert.ok(!ignored.includes(path.split("/")[0]!), `${path} is not ignored`);
      }
    }
  });
});
