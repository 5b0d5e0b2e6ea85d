import type { Command } from "commander";

const admin = () =>
  Promise.all([import("../admin-db"), import("@/lib/server/repositories/repair")]);

/**
 * `pitwall admin repair`: fixes stored times outside 2000-01-01..2100-01-01 (written before
 * frames were bounded, e.g. microseconds taken for milliseconds), which pages show as "invalid".
 * Nullable times are cleared, required ones set to the repair time (see repairStoredTimes);
 * prints one line per column with the count, then the total. Talks to the database directly.
 */
export function registerAdminCommands(program: Command): void {
  const cmd = program
    .command("admin")
    .description("database maintenance (admin; talks to the database directly)");
  cmd
    .command("repair")
    .description("clear or replace stored times outside 2000-01-01..2100-01-01 and report counts")
    .action(async () => {
      const [{ withAdminDatabase }, { repairStoredTimes }] = await admin();
      const repairs = await withAdminDatabase((db) => repairStoredTimes(db));
      for (const r of repairs)
        process.stdout.write(
          `${r.table}.${r.column}: ${r.rows} row(s) ${r.action === "replaced" ? "set to the repair time" : r.action}\n`,
        );
      const total = repairs.reduce((n, r) => n + r.rows, 0);
      process.stdout.write(
        total
          ? `repaired ${total} stored time(s)\n`
          : "no stored time outside 2000-01-01..2100-01-01\n",
      );
    });
}
