import type { FastifyInstance, FastifyRequest } from "fastify";

/**
 * What a 404 for an unknown path says: when the same path with (or without) a trailing slash is a
 * route, it names that path, since the APIs' paths are written as their specification has them
 * (the recruiting API's candidate paths end with a slash, its position paths do not).
 */
export function trackRoutesForNotFound(app: FastifyInstance): (request: FastifyRequest) => string {
  const routes: { methods: string[]; pattern: RegExp }[] = [];
  app.addHook("onRoute", (route) => {
    const source = route.url
      .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
      .replace(/:[A-Za-z0-9_]+/g, "[^/]+")
      .replace(/\*/g, ".*");
    routes.push({ methods: ([] as string[]).concat(route.method), pattern: new RegExp(`^${source}$`) });
  });
  return (request) => {
    const path = request.url.split("?")[0] ?? "";
    const other = path.endsWith("/") ? path.slice(0, -1) : `${path}/`;
    if (other && routes.some((r) => r.methods.includes(request.method) && r.pattern.test(other))) {
      return `Not Found: the path is ${request.method} ${other} (${path.endsWith("/") ? "without" : "with"} a trailing slash)`;
    }
    return "Not Found";
  };
}
