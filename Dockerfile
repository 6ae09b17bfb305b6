# k8s-collector image: the single executable (deno compile) on distroless, non-root, and it writes
# nothing (readOnlyRootFilesystem: true). README "Container image" has the run examples.
#   docker build -t k8s-collector:dev .
#   docker build --build-arg DENORT_BIN=.tmp/denort -t k8s-collector:dev .   # offline: Deno's base runtime at .tmp/denort
# Build context: this repository (../shared is not needed).

FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json build.config.ts ./
COPY src ./src
COPY scripts ./scripts
# deno compile downloads its base runtime ("denort", of the same Deno version as the `deno` npm
# package) unless DENORT_BIN names one: a path inside the build context that .dockerignore lets
# in (.tmp/denort, or any path outside the folders it lists). Without it, the COPY takes
# package.json as a stand-in, which the RUN ignores.
ARG DENORT_BIN=
COPY ${DENORT_BIN:-package.json} /opt/denort
# scripts/compile.mjs compiles the bundle alone in an empty folder: the executable embeds
# dist/cli.mjs and nothing of /src (npm ci put 300 MB of node_modules there).
RUN if [ -n "$DENORT_BIN" ]; then chmod 0755 /opt/denort && export DENORT_BIN=/opt/denort; else unset DENORT_BIN; fi; \
    npm run build && npm run compile && ./dist/k8s-collector --version

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/dist/k8s-collector /usr/local/bin/k8s-collector
USER 65532:65532
# 8080: collector health + metrics; 8000/8081: tap (fake reducer) ingest + HTTP
EXPOSE 8080 8000 8081
ENTRYPOINT ["/usr/local/bin/k8s-collector"]
CMD ["run"]
