// Pitwall agent hooks: say a wrong token or URL once, where the person sees it. At SessionStart the
// hook asks Pitwall (an empty /api/ingest batch: the token is checked before the body) and, when
// it refuses the token or does not answer, says so in one line on the hook's stderr.

/**
 * The line to show, or null when Pitwall accepts the token.
 * @param cfg loadConfig() (its `startCheckTimeoutMs`, default 3000, bounds the check)
 * @param postFrames spool.mjs postFrames (injected: tests and the failover branch can swap it)
 */
export async function startProblem(cfg, postFrames, timeoutMs = cfg.startCheckTimeoutMs ?? 3000) {
  try {
    await postFrames(cfg, [], timeoutMs);
    return null;
  } catch (err) {
    const message = String(err?.message ?? err);
    if (/HTTP 401/.test(message))
      return `Pitwall at ${cfg.url} refuses this token (401): todo lists, states and plans of this session are NOT shown in Pitwall. Check it with \`npx pitwall agent status\`.`;
    if (/HTTP \d+/.test(message)) return null; // it answers and took the token (another refusal is about the empty batch)
    return `Pitwall at ${cfg.url} does not answer (${message}): this session's updates wait in the spool until it does. Check with \`npx pitwall agent status\`.`;
  }
}
