// Pitwall's opencode plugin: opencode permission requests decided in Pitwall's inbox.
// opencode 1.18 has no `permission.ask` plugin hook any more (the name is in old docs and the
// plugin types, but nothing triggers it); a permission request is a bus event `permission.asked`
// {id, sessionID, permission, patterns, metadata, always, tool?} that waits until some client
// replies through POST /permission/:requestID/reply {reply: once|always|reject, message?}. The
// plugin opens an inbox item for each request and replies with the person's decision through
// the SDK client opencode hands to plugins. When someone answers first in opencode's own UI
// (`permission.replied`), the wait is aborted and the plugin closes the item (DELETE
// /api/inbox/:id/decision) as answered in the terminal.
// Faults never approve: no decision means no reply, and opencode keeps asking in its own UI.
import path from "node:path";

import { openAndAwait } from "../agent-hooks/lib/inbox-wait.mjs";

const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const str = (v) => (typeof v === "string" && v.length > 0 ? v : undefined);

/**
 * What a person sees of an opencode permission request (`permission.asked` properties): the tool
 * name (opencode's permission: bash, edit, read, external_directory, webfetch …), a one-line
 * summary, the input a rule matches (`command` for shell commands, `filePath` for files) and the
 * edit's diff when opencode sends one. @returns {{toolName, summary, input, diff?}}
 */
export function describeOpencodePermission(p) {
  const permission = clip(str(p?.permission) ?? str(p?.type) ?? "tool", 200);
  const meta = p?.metadata && typeof p.metadata === "object" ? p.metadata : {};
  const patterns = Array.isArray(p?.patterns)
    ? p.patterns.filter((x) => typeof x === "string").slice(0, 50)
    : [];
  const input = { permission, patterns };
  const command = str(meta.command);
  const file = str(meta.filepath) ?? str(meta.filePath) ?? str(meta.file);
  if (command) input.command = command;
  else if (file) input.filePath = file;
  if (str(meta.url)) input.url = meta.url;
  const subject = command ?? file ?? str(meta.url) ?? patterns.join(", ");
  const what =
    permission === "external_directory"
      ? `outside the project: ${patterns.join(", ")}${command ? ` (${command.split("\n")[0]})` : ""}`
      : subject || permission;
  const out = {
    toolName: permission,
    summary: clip(permission === "external_directory" ? what : `${permission}: ${what}`, 300),
    input,
  };
  if (str(meta.diff)) out.diff = meta.diff.slice(0, 200_000);
  return out;
}

/**
 * opencode's reply body for a Pitwall decision: allow → `{reply: "once"}`; deny →
 * `{reply: "reject", message}` (the message reaches the model); an allow with edited input
 * cannot be applied by opencode (its reply has no input), so it becomes a reject whose message
 * asks the model to run the edited call instead. null = no decision (opencode keeps asking).
 */
export function opencodeReply(decision) {
  if (!decision || (decision.decision !== "allow" && decision.decision !== "deny")) return null;
  const who = decision.decidedBy || "a reviewer";
  if (decision.decision === "allow" && decision.editedInput) {
    const edited = decision.editedInput.command ?? JSON.stringify(decision.editedInput);
    return {
      reply: "reject",
      message: `${who} approved an edited version in Pitwall: run exactly this instead: ${edited}`,
    };
  }
  if (decision.decision === "allow") return { reply: "once" };
  return {
    reply: "reject",
    message: `${who} denied this in Pitwall${decision.message ? `: ${decision.message}` : "."}`,
  };
}

/**
 * Handles opencode permission events for one plugin instance. `permission.asked` opens an inbox
 * item and, once decided, replies through `client` (the plugin's SDK client); `permission.replied`
 * (answered elsewhere) aborts that wait. Never throws; never awaits the person (the bus goes on).
 * @returns {(event: {type: string, properties: object}) => boolean} true when the event was one of these.
 */
export function opencodePermissionHandler(hookCfg, { client, directory, gitBranch, warn }) {
  // opencode keeps asking in its own UI while we send, so a slow Pitwall may take 10 s (the
  // Claude Code hook's 2 s budget holds up a terminal; this holds up nothing). Given up too early,
  // the item would be created but nobody would wait for its decision.
  const cfg = {
    ...hookCfg,
    permissionSendTimeoutMs: Math.max(hookCfg.permissionSendTimeoutMs ?? 0, 10_000),
  };
  const waiting = new Map();
  /** Inbox bodies of recent requests (requestID → body), to close an item answered elsewhere. */
  const recent = new Map();
  /** Requests we replied to ourselves (their `permission.replied` is our own). */
  const repliedByUs = new Set();
  const headers = { authorization: `Bearer ${cfg.token}`, "content-type": "application/json" };
  /** Closes the item of a request answered in opencode's own UI; re-opens it by its key (idempotent) when its id is not known yet. */
  const closeAnsweredElsewhere = async (itemId, body) => {
    let id = itemId;
    if (id === null) {
      const res = await fetch(`${cfg.url}/api/inbox`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      const opened = res.status === 201 ? await res.json() : null;
      if (!opened || opened.decision) return;
      id = opened.id;
    }
    // The wait's long-poll, aborted just now, may still reach the server after this close and mark
    // the waiter seen later than the close's time; the item then stays waiting. Asked again shortly
    // after, it closes (a person's decision in between ends it the same way).
    for (let attempt = 0; attempt < 5; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 500));
      const res = await fetch(`${cfg.url}/api/inbox/${id}/decision`, {
        method: "DELETE",
        headers,
        signal: AbortSignal.timeout(10_000),
      });
      const closed = res.ok ? await res.json().catch(() => null) : null;
      if (!res.ok || closed?.status !== "waiting") return;
    }
  };
  const reply = async (requestID, body) => {
    // POST /permission/{requestID}/reply through the SDK's own HTTP client (in-process or over the
    // server's port, whichever this opencode uses).
    const res = await client._client.post({
      url: "/permission/{requestID}/reply",
      path: { requestID },
      body,
      headers: { "Content-Type": "application/json" },
    });
    if (res?.error) throw new Error(JSON.stringify(res.error).slice(0, 300));
  };
  return (event) => {
    const p = event?.properties ?? {};
    if (event?.type === "permission.replied") {
      const requestID = p.requestID ?? p.permissionID;
      const wait = waiting.get(requestID);
      const body = recent.get(requestID);
      waiting.delete(requestID);
      recent.delete(requestID);
      if (repliedByUs.delete(requestID) || wait?.replying) return true;
      // Answered in opencode's own UI first: stop waiting and tell Pitwall, which closes the item
      // as answered in the terminal (a late decision there is refused). Also when the item's id
      // is not known yet (Pitwall still answering the open): it is found again by its key.
      wait?.controller.abort();
      if (body)
        closeAnsweredElsewhere(wait?.itemId ?? null, body).catch((err) =>
          warn(`could not close the inbox item of ${requestID} (${err?.message ?? err})`),
        );
      return true;
    }
    if (event?.type !== "permission.asked") return false;
    const requestID = str(p.id);
    const session = str(p.sessionID);
    if (!requestID || !session || waiting.has(requestID)) return true;
    const controller = new AbortController();
    const wait = { controller, itemId: null, replying: false };
    waiting.set(requestID, wait);
    const { toolName, summary, input, diff } = describeOpencodePermission(p);
    const timeoutS = Math.max(5, Math.round(cfg.permissionTimeoutS ?? 600));
    const body = {
      key: `oc:${clip(session, 150)}:perm:${clip(requestID, 40)}`,
      kind: "permission",
      agent: "opencode",
      session: clip(session, 200),
      toolName,
      summary,
      input,
      expiresInS: timeoutS,
    };
    if (diff) body.diff = diff;
    if (typeof directory === "string")
      Object.assign(body, { cwd: clip(directory, 4000), project: path.basename(directory) });
    if (gitBranch) body.gitBranch = clip(gitBranch, 500);
    recent.set(requestID, body);
    if (recent.size > 200) recent.delete(recent.keys().next().value);
    openAndAwait(cfg, body, {
      timeoutS,
      signal: controller.signal,
      label: "permission request",
      onOpened: (id) => {
        wait.itemId = id;
      },
    })
      .then(async (decision) => {
        if (controller.signal.aborted) return;
        const answer = opencodeReply(decision);
        // Our own reply comes back as permission.replied too: nothing to close then.
        wait.replying = true;
        if (answer) {
          repliedByUs.add(requestID);
          await reply(requestID, answer);
        } else warn("no decision in Pitwall; opencode keeps asking in its own UI");
      })
      .catch((err) => warn(`permission ${requestID} not answered (${err?.message ?? err})`))
      .finally(() => waiting.delete(requestID));
    return true;
  };
}
