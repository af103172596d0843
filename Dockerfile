# syntax=docker/dockerfile:1
# svc: the engine, its CLI, the console and the five capability workers in one image. `svc` is the entrypoint:
#   docker run svc -c config/production.yaml          the engine (default command)
#   docker run -e SVC_URL=ws://engine:49134 svc worker svc-queue    one capability worker
# Stage 1 builds with the dev dependencies (TypeScript); stage 2 runs on a slim Node 20 image with the production
# dependencies only, as the unprivileged `node` user.

ARG NODE_VERSION=20.19.5

FROM node:${NODE_VERSION}-bookworm AS build
WORKDIR /app
# Manifests first: the dependency layer is rebuilt only when they change.
COPY package.json package-lock.json .npmrc ./
COPY sdk/package.json sdk/
COPY config/kit/package.json config/kit/
COPY config/package.json config/
COPY engine/package.json engine/
COPY console/package.json console/
COPY cli/package.json cli/
COPY workers/http/package.json workers/http/
COPY workers/state/package.json workers/state/
COPY workers/queue/package.json workers/queue/
COPY workers/cron/package.json workers/cron/
COPY workers/stream/package.json workers/stream/
COPY workers/observability/package.json workers/observability/
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.build.json ./
COPY scripts/bundle-programs.mjs scripts/
COPY scripts/bundle/ scripts/bundle/
COPY sdk/ sdk/
COPY config/ config/
COPY engine/ engine/
COPY console/ console/
COPY cli/ cli/
COPY workers/ workers/
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
# Each process keeps the V8 code cache of the bundle it ran here (the image's own files are not the node user's to
# write), so a restart, `svc trigger` and a health check compile less.
ENV SVC_COMPILE_CACHE=/tmp/svc-compile-cache
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules/ node_modules/
COPY --from=build /app/sdk/package.json sdk/
COPY --from=build /app/sdk/dist/ sdk/dist/
COPY --from=build /app/config/kit/package.json config/kit/
COPY --from=build /app/config/kit/dist/ config/kit/dist/
COPY --from=build /app/config/package.json config/
COPY --from=build /app/config/dist/ config/dist/
COPY --from=build /app/config/svc-config.yaml /app/config/production.yaml config/
COPY --from=build /app/config/examples/ config/examples/
COPY --from=build /app/engine/package.json engine/
COPY --from=build /app/engine/dist/ engine/dist/
COPY --from=build /app/console/package.json console/
COPY --from=build /app/console/dist/ console/dist/
COPY --from=build /app/console/web/dist/ console/web/dist/
COPY --from=build /app/cli/package.json cli/
COPY --from=build /app/cli/dist/ cli/dist/
COPY --from=build /app/workers/ workers/
# Only the workers' built code and manifests are needed; their sources and tests are not.
RUN find workers -mindepth 2 -maxdepth 2 \( -name src -o -name test -o -name tsconfig.json \) -exec rm -rf {} + \
    && chmod +x cli/dist/main.js \
    && ln -s /app/cli/dist/main.js /usr/local/bin/svc \
    && mkdir -p /app/data \
    && chown node:node /app/data
USER node
# Engine WebSocket, svc-http, svc-stream client sockets.
EXPOSE 49134 3111 3112
ENTRYPOINT ["svc"]
CMD ["-c", "config/production.yaml"]
