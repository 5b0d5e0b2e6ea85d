// Pitwall agent hooks: plans. Pure helpers (markdown → plan items, decision → text for the
// model) and the gate that proposes a plan and waits for a person's decision.

const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * Title and steps of a markdown plan (Claude Code's ExitPlanMode `plan`, 2.1.x): the title is
 * the first heading (else the first non-empty line); the steps are the top-level list items
 * (`1.`, `1)`, `-`, `*`, `+`, checkboxes stripped), or the title alone when there are none.
 * @returns {{title: string, items: {content: string}[]}}
 */
export function planFromMarkdown(markdown) {
  const lines = String(markdown ?? "").split(/\r?\n/);
  const heading = lines.find((l) => /^#{1,6}\s+\S/.test(l));
  const firstLine = lines.find((l) => l.trim() !== "");
  const title = clip(
    (heading ? heading.replace(/^#{1,6}\s+/, "") : (firstLine ?? "Plan")).trim() || "Plan",
    200,
  );
  const items = [];
  for (const line of lines) {
    const m = /^(?:\d+[.)]|[-*+])\s+(?:\[[ xX]\]\s+)?(.+)$/.exec(line);
    if (m && m[1].trim()) items.push({ content: clip(m[1].trim(), 20_000) });
  }
  return { title, items: (items.length ? items : [{ content: title }]).slice(0, 200) };
}

const sameItems = (a, b) => a.length === b.length && a.every((x, i) => x.content === b[i]?.content);

/**
 * What the agent is told about a decision (a `plan.decision` from Pitwall) on `proposed`
 * ({title, items, body}). @returns {{allow: true, plan: string} | {allow: false, message: string}}
 *   approved: allowed, with the edited plan when a person changed the items and their comment
 *   appended; changes_requested / rejected: denied with the reviewer's comment as the reason.
 * `proposeTool` names the tool the agent calls again with its revision (Claude Code:
 * ExitPlanMode, the default; opencode: pitwall_propose_plan).
 */
export function decisionForAgent(decision, proposed, proposeTool = "ExitPlanMode") {
  const who = decision.decidedBy || "a reviewer";
  const comment = decision.comment ? decision.comment.trim() : "";
  if (decision.decision === "approved") {
    const items = Array.isArray(decision.items) ? decision.items : proposed.items;
    let plan = sameItems(items, proposed.items)
      ? proposed.body
      : `# ${proposed.title}\n\n${items.map((it, i) => `${i + 1}. ${it.content}`).join("\n")}\n`;
    if (comment) plan += `\n\nNote from ${who} (approved in Pitwall): ${comment}\n`;
    return { allow: true, plan };
  }
  if (decision.decision === "changes_requested") {
    return {
      allow: false,
      message: `${who} requested changes to this plan in Pitwall: ${comment || "(no comment)"}\nRevise the plan accordingly and call ${proposeTool} again with the revised plan.`,
    };
  }
  if (decision.decision === "rejected") {
    return {
      allow: false,
      message: `${who} rejected this plan in Pitwall${comment ? `: ${comment}` : "."}\nDo not carry it out; stop and wait for instructions.`,
    };
  }
  return { allow: false, message: `The plan expired in Pitwall without a decision.` };
}

/**
 * Proposes `frame` (a plan.propose) straight to Pitwall (not spooled: nobody must approve a plan
 * whose agent already gave up) and long-polls its decision until `timeoutS` passed.
 * Network errors and 5xx answers while waiting move on to the next server URL (several
 * instances: failover) and are retried every 2 s (Pitwall may restart meanwhile).
 * @returns the `plan.decision` object, or null on timeout / when the proposal could not be sent.
 */
export async function proposeAndWait(
  cfg,
  frame,
  { timeoutS, postFrames, sleep = (ms) => new Promise((r) => setTimeout(r, ms)), now = Date.now },
) {
  try {
    const body = await postFrames(cfg, [frame], 10_000);
    const r = body?.results?.[0];
    if (!r?.ok) throw new Error(r ? `${r.code}: ${r.message}` : "no result");
  } catch (err) {
    process.stderr.write(`pitwall hook: could not propose the plan to Pitwall (${err.message})\n`);
    return null;
  }
  const deadline = now() + timeoutS * 1000;
  const urls = Array.isArray(cfg.urls) && cfg.urls.length ? cfg.urls : [cfg.url];
  let at = 0;
  while (now() < deadline) {
    const waitS = Math.max(1, Math.min(60, Math.ceil((deadline - now()) / 1000)));
    try {
      const res = await fetch(
        `${urls[at % urls.length]}/api/plans/${encodeURIComponent(frame.plan)}/decision?wait=${waitS}`,
        {
          headers: { authorization: `Bearer ${cfg.token}` },
          signal: AbortSignal.timeout((waitS + 15) * 1000),
        },
      );
      if (res.status === 200) {
        const body = await res.json();
        if (body?.decision) return body.decision;
        continue;
      }
      if (res.status >= 500) at++;
    } catch {
      // This instance is unreachable: the next one (or this again, after a pause) until the deadline
      at++;
    }
    await sleep(2000);
  }
  return null;
}
