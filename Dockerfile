# syntax=docker/dockerfile:1
# Vigil server image: api, worker or both in one process (VIGIL_ROLE), functional scans with
# Debian's Chromium. Build: docker build -t vigil .   Run: see docs/deploy.md.

# --- build: install from the lockfile, compile the server and the dashboard, keep only production dependencies ---
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary matches the platform.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY packages/cli/package.json packages/cli/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
# The dashboard (served at /app): Vite builds web/ into dist/web.
COPY web ./web
# The client package the server serves at /cli/vigil-cli.tgz: packed from packages/cli by scripts/pack-cli.mjs.
COPY scripts/pack-cli.mjs ./scripts/
COPY packages/cli ./packages/cli
RUN npm run build \
 && cp src/engines/security/checks/jwt/secrets.txt dist/engines/security/checks/jwt/secrets.txt \
 && npm prune --omit=dev --no-audit --no-fund

# --- runtime: Node, Debian's Chromium, the compiled server, a non-root user ---
FROM node:20-bookworm-slim AS runtime
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-liberation fonts-noto-color-emoji ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 vigil \
 && useradd --system --uid 10001 --gid vigil --home-dir /var/lib/vigil --create-home --shell /usr/sbin/nologin vigil
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN ln -s /app/dist/operator/main.js /usr/local/bin/vigil && chmod 755 /app/dist/operator/main.js
ENV HOST=0.0.0.0 \
    PORT=8080 \
    VIGIL_DATA_DIR=/var/lib/vigil \
    CHROMIUM_PATH=/usr/bin/chromium
USER vigil
VOLUME ["/var/lib/vigil"]
EXPOSE 8080
# Roles that serve HTTP (all, api) answer GET /api/v1/health: 200 when the process and its database answer.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/api/v1/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# What `npm start` runs, without its install-and-build step (done above).
CMD ["node", "dist/operator/main.js", "serve"]
