import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";

type HookName = "onRequest" | "preValidation" | "preHandler" | "onResponse";

/**
 * Adds a hook to one route from an `onRoute` hook, after the route's own hooks of that name.
 *
 * Why per route: a hook registered for every request that first reads `request.routeOptions` (a
 * getter that builds a fresh object of twelve fields on every read) to decide what to do made
 * every request pay for the decision, three times per request on the API's hot path (storable
 * input, access log, metrics). Deciding once at registration, with the route's url, config and
 * schema in the closure, costs nothing per request and leaves routes that need nothing hook-free.
 */
export function appendRouteHook(route: RouteOptions, name: HookName, hook: (...args: never[]) => unknown): void {
  const existing = route[name] as unknown;
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
  (route as unknown as Record<HookName, unknown>)[name] = [...list, hook];
}

/** What to do when a request of one route has been answered. */
type OnAnswer = (request: FastifyRequest, reply: FastifyReply) => void;

/** What each app's answer handlers are made by (onAnswerByRoute), in the order they were given. */
const answerMakers = new WeakMap<FastifyInstance, ((route: string | null) => OnAnswer)[]>();

/** One handler that runs `all` in order (the only one itself when there is one). */
const inOrder = (all: OnAnswer[]): OnAnswer =>
  all.length === 1
    ? all[0]!
    : (request, reply) => {
        for (const answered of all) answered(request, reply);
      };

/**
 * Runs, for every answered request, the handler `forRoute` made for its route template: once per
 * route at registration (appendRouteHook), and once for the requests that match no route (`null`,
 * one instance-wide hook that checks only `is404`). The access log and the metrics both count
 * requests by route this way, through one hook per route between them (and one for 404s): each
 * hook Fastify runs costs a request more than the work of either.
 */
export function onAnswerByRoute(app: FastifyInstance, forRoute: (route: string | null) => OnAnswer): void {
  const known = answerMakers.get(app);
  if (known) {
    known.push(forRoute);
    return;
  }
  const makers = [forRoute];
  answerMakers.set(app, makers);
  app.addHook("onRoute", (route) => {
    const answered = inOrder(makers.map((make) => make(route.url)));
    appendRouteHook(route, "onResponse", (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      answered(request, reply);
      done();
    });
  });
  let unmatched: OnAnswer | undefined;
  app.addHook("onResponse", (request, reply, done) => {
    if (request.is404) {
      unmatched ??= inOrder(makers.map((make) => make(null)));
      unmatched(request, reply);
    }
    done();
  });
}
