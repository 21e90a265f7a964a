# One image for every sqlsweep process (orchestrator, workers, llm simulator); docker-compose.yml picks
# the command. TypeScript runs directly through @swc-node/register, as on a developer machine.
# Stage 1: only the npm manifests (root and every workspace), so the dependency layer below is reused
# while sources change, and a new app or lib needs no edit here.
FROM node:20-bookworm AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && cp package.json package-lock.json .npmrc /manifests/ \
 && for manifest in apps/*/package.json libs/*/package.json infra/package.json scripts/package.json data/minibench/package.json; do \
      mkdir -p "/manifests/$(dirname "$manifest")" && cp "$manifest" "/manifests/$manifest"; \
    done

FROM node:20-bookworm
WORKDIR /app
# WordNet, from which R3's default RAG corpus is built (scripts/rag-corpus.ts).
RUN apt-get update && apt-get install -y --no-install-recommends wordnet-base && rm -rf /var/lib/apt/lists/*
RUN chown node:node /app
USER node

COPY --chown=node:node --from=manifests /manifests/ ./
RUN npm ci

COPY --chown=node:node . .
# The bundled benchmark (SQLite databases in BIRD layout) is built from its committed seed scripts.
RUN node -r @swc-node/register data/minibench/build.ts
# R3's default RAG corpus, data/rag/wordnet-noun-glosses.txt (the corpus directory is data/ in the image too).
RUN node -r @swc-node/register -e "require('./scripts/rag-corpus.ts').buildNeutralRagCorpus({ corpusDir: 'data', log: console.log })"

# Created here, owned by `node`, so the named volume docker-compose mounts on it starts writable.
RUN mkdir -p /app/.sqlsweep
ENV SQLSWEEP_DATA_DIR=/app/.sqlsweep
CMD ["node", "-r", "@swc-node/register", "apps/orchestrator/src/main.ts"]
