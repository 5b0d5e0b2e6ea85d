// Pitwall agent hooks: open an inbox item and wait for a person's decision. Shared by Claude
// Code's PermissionRequest gate, its AskUserQuestion gate and opencode's permission handler.
// Faults never approve: Pitwall down or slow, a timeout, a closed item or an abort all give null.

/**
 * POSTs inbox item `body` (the POST /api/inbox shape) straight (never spooled) within
 * `cfg.permissionSendTimeoutMs` (default 2000 ms), failing over between `cfg.urls`; when an inbox
 * rule decides it at once, returns that decision; else long-polls GET /api/inbox/:id/decision
 * until `timeoutS` or `signal` aborts. `onOpened(id)` runs once the item exists and may return a
 * cleanup function (run when the wait ends). `label` names the request in stderr lines.
 * @returns the decision ({decision, message, editedInput, decidedBy, decidedAt}) or null.
 */
export async function openAndAwait(
  cfg,
  body,
  {
    timeoutS,
    signal,
    onOpened,
    label = "request",
    sleep = (ms) => new Promise((r) => setTimeout(r, ms)),
    now = Date.now,
  },
) {
  const urls = Array.isArray(cfg.urls) && cfg.urls.length ? cfg.urls : [cfg.url];
  const headers = { authorization: `Bearer ${cfg.token}`, "content-type": "application/json" };
  const withAbort = (ms) =>
    signal ? AbortSignal.any([signal, AbortSignal.timeout(ms)]) : AbortSignal.timeout(ms);
  let id = null;
  let at = 0;
  const sendBy = now() + (cfg.permissionSendTimeoutMs ?? 2000);
  while (id === null && now() < sendBy && at < urls.length && !signal?.aborted) {
    try {
      const res = await fetch(`${urls[at]}/api/inbox`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: withAbort(Math.max(1, sendBy - now())),
      });
      if (res.status === 201) {
        const opened = await res.json();
        // An inbox rule decided it at once: no waiting.
        if (opened.decision) return opened.decision;
        id = opened.id;
      } else if (res.status < 500) {
        process.stderr.write(
          `pitwall hook: Pitwall refused the ${label} (${res.status}: ${(await res.text()).slice(0, 300)}); asking in the terminal\n`,
        );
        return null;
      } else at++;
    } catch {
      at++;
    }
  }
  if (id === null) {
    if (!signal?.aborted)
      process.stderr.write(
        `pitwall hook: Pitwall did not take the ${label} within 2 s; asking in the terminal\n`,
      );
    return null;
  }
  const cleanup = onOpened?.(id);
  try {
    const deadline = now() + timeoutS * 1000;
    at = 0;
    while (now() < deadline && !signal?.aborted) {
      const waitS = Math.max(1, Math.min(60, Math.ceil((deadline - now()) / 1000)));
      try {
        const res = await fetch(
          `${urls[at % urls.length]}/api/inbox/${id}/decision?wait=${waitS}`,
          { headers, signal: withAbort((waitS + 15) * 1000) },
        );
        if (res.status === 200) {
          const state = await res.json();
          if (state?.decision) return state.decision;
          if (state?.status !== "waiting") return null;
          continue;
        }
        if (res.status < 500) return null;
        at++;
      } catch {
        if (signal?.aborted) return null;
        at++;
      }
      await sleep(2000);
    }
    return null;
  } finally {
    if (typeof cleanup === "function") cleanup();
  }
}
