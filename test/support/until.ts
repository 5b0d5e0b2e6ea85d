/**
 * Polls `probe` every 100 ms until it returns something truthy, and returns that.
 * @throws Error "timed out waiting for <what>" (followed by `context()`, e.g. a child process's
 *   last output) after `timeoutMs` (default 30 s).
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 30_000,
  context: () => string = () => "",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}\n${context()}`.trimEnd());
    await new Promise((r) => setTimeout(r, 100));
  }
}
