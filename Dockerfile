# netkeel production image: compiled with the dev toolchain, run with the production dependencies
# only (npm ci --omit=dev), on a maintained Node LTS (the project itself runs on Node 20.19+, 22.13+
# and 24.11+). README, "Container"; docker-compose.yml runs it with PostgreSQL.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
COPY plugins ./plugins
RUN npm run build

# Exactly the lock file's production dependencies, without their install scripts (the only one,
# swagger-ui-dist's @scarf/scarf, reports usage).
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

FROM node:22-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# package.json names the operator's command (`bin`): docker exec <container> npx netkeel <command>.
# npx makes the launcher executable each time it links it: the launcher alone is the user's.
COPY package.json ./
COPY --chown=node:node bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Liveness: the process serves (no credentials needed; /ready/ also checks the database).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD node -e "const b=(process.env.BASE_PATH||'').replace(/^\/+|\/+$/g,'');require('http').get('http://127.0.0.1:'+(process.env.PORT||8080)+(b?'/'+b:'')+'/health/',r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"
# node's options as `npm start` gives them (package.json; test/deployment/start-command.spec.ts).
CMD ["node", "--max-old-space-size=1024", "--max-semi-space-size=8", "dist/src/main.js"]
