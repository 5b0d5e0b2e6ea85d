/**
 * Ends the command with `pitwall: <message>` on stderr and `exitCode`
 * (1 = error, 2 = usage/configuration). Unlike commander's `program.error`, prints no help text.
 */
export function fail(message: string, exitCode: 1 | 2 = 1): never {
  process.stderr.write(`pitwall: ${message}\n`);
  process.exit(exitCode);
}
