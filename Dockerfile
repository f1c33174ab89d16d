# Emporium: one image for the API processes (`serve --no-worker`) and the workers (`worker`).
# External PostgreSQL (DATABASE_URL) is expected in containers; the embedded cluster is for laptops.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY . .
# npm ci also compiles the server into dist/ and builds the dashboard (the `prepare` script); dev
# tools are dropped afterwards.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev

FROM node:24-bookworm-slim
# glibc malloc with two arenas, and blocks of 128 KiB or more always mapped on their own: memory freed
# after an image burst goes back to the system (docs/decisions.md).
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0 MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app /app
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# V8's young generation capped at 2 × 16 MB: see docs/decisions.md ("V8 young generation").
ENTRYPOINT ["node", "--max-semi-space-size=16", "dist/cli.js"]
CMD ["serve", "--no-worker"]
