# k8s-collector image: the single executable (deno compile) on distroless, non-root.
#   docker build -t k8s-collector:dev .
#   docker run --rm k8s-collector:dev run --intake-host reducer --kubeconfig /kube/config
#   docker run --rm -p 8000:8000 -p 8081:8081 k8s-collector:dev tap      # the fake reducer
# Build context: this repository (../shared is not needed).

FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json build.config.ts ./
COPY src ./src
COPY scripts ./scripts
# deno compile downloads its base runtime here (the build has network); DENORT_BIN may point at a
# local one instead: docker build --build-arg DENORT_BIN=/path/in/context ...
ARG DENORT_BIN=
RUN if [ -z "$DENORT_BIN" ]; then unset DENORT_BIN; fi; \
    npm run build && npm run compile && ./dist/k8s-collector --version

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/dist/k8s-collector /usr/local/bin/k8s-collector
USER 65532:65532
# 8080: collector health + metrics; 8000/8081: tap (fake reducer) ingest + HTTP
EXPOSE 8080 8000 8081
ENTRYPOINT ["/usr/local/bin/k8s-collector"]
CMD ["run"]
