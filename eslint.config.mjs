import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import prettier from "eslint-config-prettier/flat";

/**
 * Client components (files starting with "use client") must never import server-only code:
 * `lib/server/**` holds the database client, secrets and ingest. ESLint cannot tell a client
 * component by its path, so this small rule reads the directive itself.
 */
const noServerImportsInClient = {
  meta: {
    type: "problem",
    messages: {
      forbidden:
        "client component imports server-only module '{{source}}' (lib/server/** is server-only)",
    },
  },
  create(context) {
    const body = context.sourceCode.ast.body;
    const isClient = body.some(
      (n) => n.type === "ExpressionStatement" && n.directive === "use client",
    );
    if (!isClient) return {};
    const check = (node) => {
      const source = node.source?.value;
      if (
        typeof source === "string" &&
        (/^@\/lib\/server(\/|$)/.test(source) ||
          /(^|\/)lib\/server(\/|$)/.test(source) ||
          /^(\.\.\/)+server(\/|$)/.test(source))
      ) {
        context.report({ node, messageId: "forbidden", data: { source } });
      }
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

const config = [
  ...nextVitals,
  ...nextTs,
  prettier,
  {
    plugins: { pitwall: { rules: { "no-server-imports-in-client": noServerImportsInClient } } },
    rules: {
      "pitwall/no-server-imports-in-client": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
    },
  },
  {
    ignores: [
      ".venv-test/**",
      "build/**",
      "clients/python/build/**",
      ".next/**",
      ".next-*/**",
      ".data-demo/**",
      "generated/**",
      "node_modules/**",
      ".data/**",
      "tmp/**",
      "prisma/engine/**",
      "test-results/**",
      "playwright-report/**",
      "next-env.d.ts",
    ],
  },
];

export default config;
