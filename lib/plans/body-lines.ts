/**
 * Lines of a plan's markdown body as comments and diffs number them (1-based by index + 1):
 * `\r\n` counts as one line end and a final line end adds no empty line. Null or "" has none.
 */
export function bodyLines(body: string | null): string[] {
  if (!body) return [];
  const lines = body.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
