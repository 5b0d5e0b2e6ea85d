/**
 * `npx pitwall …`: the Pitwall command line. Admin commands (token) talk to the database;
 * client commands (import, run, push, heartbeat, scrape) talk to a Pitwall server with a worker token.
 */
import { Command } from "commander";

import { registerAdminCommands } from "./commands/admin";
import { registerAgentCommands } from "./commands/agent";
import { registerHeartbeatCommand } from "./commands/heartbeat";
import { registerImportCommand } from "./commands/import";
import { registerPlanCommands } from "./commands/plan";
import { registerPushCommand } from "./commands/push";
import { registerRunCommand } from "./commands/run";
import { registerScrapeCommand } from "./commands/scrape";
import { registerSyncCommand } from "./commands/sync";
import { registerTokenCommands } from "./commands/token";
import { registerUserCommands } from "./commands/user";
import { registerWatchCommands } from "./commands/watch";

const program = new Command("pitwall")
  .description("Pitwall: live dashboard for LLM infrastructure work")
  .showHelpAfterError()
  .configureOutput({ outputError: (s, write) => write(s) });
program.exitOverride((err) => {
  // Our own program.error() calls carry their exit code; commander's usage errors exit 2.
  process.exit(err.code === "commander.error" || err.exitCode === 0 ? err.exitCode : 2);
});

registerTokenCommands(program);
registerUserCommands(program);
registerImportCommand(program);
registerRunCommand(program);
registerPushCommand(program);
registerSyncCommand(program);
registerHeartbeatCommand(program);
registerScrapeCommand(program);
registerPlanCommands(program);
registerWatchCommands(program);
registerAgentCommands(program);
registerAdminCommands(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`pitwall: ${(err as Error).message}\n`);
  process.exit(1);
});
