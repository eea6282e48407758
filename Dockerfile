# netkeel production image: build with the dev toolchain, run with production dependencies only,
# on a maintained Node LTS (the project itself runs on Node 20.19+, 22 and 24).
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
COPY bench ./bench
COPY plugins ./plugins
RUN npm run build && npm prune --omit=dev && rm -rf dist/bench

FROM node:22-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Liveness: the process serves (no credentials needed; /ready/ also checks the database).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD node -e "const b=(process.env.BASE_PATH||'').replace(/^\/+|\/+$/g,'');require('http').get('http://127.0.0.1:'+(process.env.PORT||8080)+(b?'/'+b:'')+'/health/',r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"
CMD ["node", "dist/src/main.js"]
