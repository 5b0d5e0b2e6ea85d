/**
 * One format for the whole repository (issue #21): width 100, imports sorted in three groups
 * (node built-ins and packages, `@/` paths, relative paths), Tailwind classes in Tailwind's order.
 * `npm run lint` runs `prettier --check .`; `npm run format` rewrites.
 */
const config = {
  printWidth: 100,
  plugins: ["@ianvs/prettier-plugin-sort-imports", "prettier-plugin-tailwindcss"],
  importOrder: ["<BUILTIN_MODULES>", "<THIRD_PARTY_MODULES>", "", "^@/(.*)$", "", "^[.]"],
  importOrderTypeScriptVersion: "5.0.0",
  tailwindStylesheet: "./app/globals.css",
  tailwindFunctions: ["cn", "cva", "clsx"],
};

export default config;
