// Pitwall replaces @prisma/streams-local (a dependency of `prisma dev` only, which needs Node 22)
// with this stub (a root dependency, handed to Prisma through package.json "overrides": "$@prisma/streams-local"),
// so `npm install` and `npm ci` are clean on Node 20.19+.
// Pitwall never runs `prisma dev`; its database is embedded PostgreSQL or DATABASE_URL.
exports.startLocalDurableStreamsServer = async function startLocalDurableStreamsServer() {
  throw new Error(
    "`prisma dev` is not supported in Pitwall: use `npm run dev` (embedded PostgreSQL) instead",
  );
};
