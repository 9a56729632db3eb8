# syntax=docker/dockerfile:1
# One image for every Hirebridge service; the command selects which:
#   docker run hirebridge serve api        (or token, proxy, sandbox; `serve all` is the default)
#   docker run hirebridge admin users list (any other CLI command)
# The services run their TypeScript sources through tsx (a production dependency), so there is no
# build step: the image holds the sources, the migrations and the production node_modules.

# --- Production dependencies only (no typescript, test or benchmark tools). ---
FROM node:24-bookworm-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- Type check and unit tests: `docker build --target check .` (not part of the runtime image). ---
FROM node:24-bookworm-slim AS check
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run typecheck && npm run test:unit

# --- The operator console's static files (esbuild and Preact are production dependencies). ---
FROM node:24-bookworm-slim AS console-build
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY console ./console
COPY src ./src
COPY scripts/build-console.ts ./scripts/build-console.ts
RUN node_modules/.bin/tsx scripts/build-console.ts

# --- Runtime: non-root, read-only application files, a writable data directory. ---
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY migrations ./migrations
COPY --from=console-build /app/console/dist ./console/dist
COPY deploy/healthcheck.mjs ./deploy/healthcheck.mjs
# Embedded storage (PGlite) when DATABASE_URL is unset; owned by the unprivileged `node` user (uid 1000).
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
# proxy, recruiting API, console, token service, sandbox (the ConfigSchema defaults)
EXPOSE 8000 8001 8002 8080 8090
# /healthz of the services named in the container's command (deploy/healthcheck.mjs).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["node", "deploy/healthcheck.mjs"]
# `serve` drains in-flight requests on SIGTERM (up to 15 s); give containers a stop timeout above that.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "--import", "tsx", "src/cli/main.ts"]
CMD ["serve", "all"]
