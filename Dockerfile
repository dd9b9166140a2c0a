# chainpay's image: what docker-compose.yml runs (docs/operations.md).
#   docker build -t chainpay .
#   docker run --rm -p 8080:8080 chainpay          # `npm start`: embedded PostgreSQL, devnet chains
# Two stages: the first installs every dependency and compiles TypeScript to dist/ (`npm run build`);
# the second holds only dist/ and the production dependencies, and runs as the unprivileged `node` user.

FROM node:20-bookworm-slim AS build
WORKDIR /build
COPY package.json package-lock.json ./
# --ignore-scripts: tsc needs no install script, and the build runs below, once the sources are here.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.js scripts/
COPY proto proto
COPY src src
COPY gateway gateway
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; `prepare` finds no sources to build here (dist/ comes from above).
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /build/dist dist
# DATA_DIR: key material (and the embedded PostgreSQL when DATABASE_URL is unset); a named volume
# mounted here starts with this ownership.
RUN mkdir -p /var/lib/chainpay && chown node:node /var/lib/chainpay
ENV DATA_DIR=/var/lib/chainpay
# The gateway listens on 127.0.0.1 by default (one machine); in a container it must take connections
# from outside it (`docker run -p 8080:8080`), so on all interfaces here.
ENV HTTP_HOST=0.0.0.0
USER node
# Gateway HTTP, daemon gRPC, daemon metrics.
EXPOSE 8080 50051 9464
# As `npm start` (package.json; test/foundation/node-flags.test.ts keeps them equal). docker-compose.yml
# runs the daemon and the gateway apart instead, as `npm run start:daemon` and `npm run start:gateway`.
CMD ["node", "--enable-source-maps", "--expose-gc", "--min-semi-space-size=16", "--max-semi-space-size=64", "--heap-growing-percent=200", "dist/src/start-all.js"]
