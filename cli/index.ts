/**
 * `npx pitwall …`: the Pitwall command line. Admin commands (token) talk to the database;
 * client commands (import, run, push, heartbeat, scrape) talk to a Pitwall server with a worker token.
 */
import { Command } from "commander";

type Register = (program: Command) => void;

/**
 * Each top-level command's module, loaded on demand: `pitwall token create` imports only
 * commands/token.ts, not the importers, scrapers and watchers of the others (a process start of
 * ~1.0 s CPU became ~0.4 s; the e2e and CLI tests start the CLI dozens of times). Help, an unknown
 * command or no command load them all, in this order (the order of `pitwall --help`).
 */
const COMMANDS: [string[], () => Promise<Register>][] = [
  [["token"], async () => (await import("./commands/token")).registerTokenCommands],
  [["user"], async () => (await import("./commands/user")).registerUserCommands],
  [["import"], async () => (await import("./commands/import")).registerImportCommand],
  [["run"], async () => (await import("./commands/run")).registerRunCommand],
  [["push"], async () => (await import("./commands/push")).registerPushCommand],
  [["sync"], async () => (await import("./commands/sync")).registerSyncCommand],
  [["heartbeat"], async () => (await import("./commands/heartbeat")).registerHeartbeatCommand],
  [["scrape"], async () => (await import("./commands/scrape")).registerScrapeCommand],
  [["plan"], async () => (await import("./commands/plan")).registerPlanCommands],
  [["watch"], async () => (await import("./commands/watch")).registerWatchCommands],
  [["agent", "hook"], async () => (await import("./commands/agent")).registerAgentCommands],
  [["admin"], async () => (await import("./commands/admin")).registerAdminCommands],
];

const program = new Command("pitwall")
  .description("Pitwall: live dashboard for LLM infrastructure work")
  .showHelpAfterError()
  .configureOutput({ outputError: (s, write) => write(s) });
program.exitOverride((err) => {
  // Our own program.error() calls carry their exit code; commander's usage errors exit 2.
  process.exit(err.code === "commander.error" || err.exitCode === 0 ? err.exitCode : 2);
});

const named = COMMANDS.filter(([names]) => names.includes(process.argv[2] ?? ""));
for (const [, load] of named.length ? named : COMMANDS) (await load())(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`pitwall: ${(err as Error).message}\n`);
  process.exit(1);
});
