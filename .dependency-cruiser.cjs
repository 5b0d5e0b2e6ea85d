/**
 * Import rules of Pitwall, checked by `npm run lint` (dependency-cruiser; see CONTRIBUTING.md):
 * three floors with no import running back up (app -> components -> lib), browser-side code never
 * reaching server-only lib/server, and no import circles anywhere (type-only imports included:
 * a circle of types is still a knot in the module map).
 * Client components ("use client" files) are also checked by ESLint (eslint.config.mjs).
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "Modules import each other in a circle; move the shared part (often a type) into a module both import.",
      from: {},
      to: { circular: true },
    },
    {
      name: "lib-not-up",
      severity: "error",
      comment: "lib/ is the ground floor: it never imports components/ or app/.",
      from: { path: "^lib/" },
      to: { path: "^(components|app)/" },
    },
    {
      name: "components-not-up",
      severity: "error",
      comment: "components/ never imports app/ (routes).",
      from: { path: "^components/" },
      to: { path: "^app/" },
    },
    {
      name: "client-not-to-server",
      severity: "error",
      comment:
        "Code that runs in the browser (components/, app/**/_components/, lib/ outside lib/server) never imports server-only lib/server/. " +
        "Exceptions: tests, and the server components listed here (no 'use client'; they render on the server only).",
      from: {
        path: ["^components/", "^app/[^.]*_components/", "^lib/"],
        pathNot: ["^lib/server/", "\\.test\\.tsx?$", "^components/nav/top-nav\\.tsx$"],
      },
      to: { path: "^lib/server/" },
    },
    {
      name: "api-contracts-client-safe",
      severity: "error",
      comment:
        "lib/api/ holds the API contracts and fetchers the browser and the routes share: it never imports server-only code (lib/server/, the Prisma client), tests included.",
      from: { path: "^lib/api/" },
      to: { path: ["^lib/server/", "^generated/"] },
    },
    {
      name: "metric-store-through-index",
      severity: "error",
      comment:
        "The metric store (lib/server/metric-store/) is reached through its index only: its files are its own business.",
      from: { pathNot: ["^lib/server/metric-store/"] },
      to: { path: "^lib/server/metric-store/(?!index\\.ts$)" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["^(node_modules|generated|\\.next|\\.data)(/|$)", "^test/fixtures/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
