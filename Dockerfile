# syntax=docker/dockerfile:1
# One image for every Hirebridge service; the command selects which:
#   docker run hirebridge serve api        (or token, proxy, sandbox; `serve all` is the default)
#   docker run hirebridge admin users list (any other CLI command)
# The image runs compiled JavaScript (dist/, built by tsc in the build stage): no TypeScript
# sources, no tsx or esbuild; it holds dist/, the migrations and the production node_modules.

# --- Production dependencies only (no typescript, tsx, test or benchmark tools). ---
FROM node:24-bookworm-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- Compile src/ to dist/ (tsc, a development dependency; nothing of this install is shipped). ---
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY console ./console
COPY scripts/build-console.ts ./scripts/build-console.ts
# tsc for dist/, then the operator console's static files (esbuild bundles Preact and the SDK).
RUN npm run build

# --- Type check and unit tests: `docker build --target check .` (not part of the runtime image). ---
FROM node:24-bookworm-slim AS check
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run typecheck && npm run test:unit

# --- Runtime: non-root, read-only application files, a writable data directory. ---
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json package-lock.json ./
COPY bin ./bin
COPY migrations ./migrations
COPY --from=build /app/console/dist ./console/dist
COPY deploy/healthcheck.mjs ./deploy/healthcheck.mjs
# Embedded storage (PGlite) when DATABASE_URL is unset; owned by the unprivileged `node` user (uid 1000).
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
# proxy, recruiting API, console, token service, sandbox (the ConfigSchema defaults)
EXPOSE 8000 8001 8002 8080 8090
# Liveness: /healthz of the services named in the container's command (deploy/healthcheck.mjs). It
# does no I/O, so an outage of Postgres or Redis never marks (and gets restarted) a live instance;
# readiness is /readyz, for load balancers (`node deploy/healthcheck.mjs --ready`).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["node", "deploy/healthcheck.mjs"]
# `serve` drains in-flight requests on SIGTERM (up to 15 s); give containers a stop timeout above that.
STOPSIGNAL SIGTERM
# A young generation of at most 8 MB per semi-space: V8 sizes it from the machine's memory by default
# (up to 64 MB on a large host), which alone added ~100 MB to an idle service's RSS. Two V8 worker
# threads instead of four: each thread that compiled PGlite's WebAssembly keeps its own C allocator
# arena, fragmented (-40 MB for `serve all` on PGlite; no measurable cost in PGlite's query speed).
ENTRYPOINT ["node", "--max-semi-space-size=8", "--v8-pool-size=2", "dist/cli/main.js"]
CMD ["serve", "all"]
