"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";

import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { useServerNow } from "@/components/pipelines/use-server-now";
import { PushToggle } from "@/components/pwa/push-toggle";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { decideInbox, fetchInbox, type InboxDecisionRequest } from "@/lib/api/fetchers/inbox";
import { allInboxQueryKey, inboxQueryKey } from "@/lib/api/query-keys";
import type { InboxEntry, InboxListView } from "@/lib/view-models/inbox";

import { DecisionEditor, type DecisionEditorState } from "./decision-editor";
import { InboxItemDetail } from "./inbox-item-detail";
import { QuestionAnswer } from "./question-answer";

/** Seconds a decision can be undone before it is sent. */
export const UNDO_S = 4;

type Pending = { id: string; label: string; body: InboxDecisionRequest; sendAt: number };
type Editor = DecisionEditorState;

/** What an "always allow" rule of `item` matches by default: its exact command, path or URL. */
function exactSubject(item: InboxEntry): string | null {
  const inp = item.input ?? {};
  for (const k of ["command", "file_path", "filePath", "notebook_path", "path", "url"]) {
    const v = inp[k];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  return null;
}

/** The live inbox: one queue across hosts, agents and sessions, oldest first; approvers decide with a few seconds to undo. Keys: j/k move, a approve, d deny, e edit. `selectedId`: the item selected first (a notification's link). */
export function InboxView({
  initial,
  renderedAt,
  canDecide,
  selectedId,
}: {
  initial: InboxListView;
  renderedAt: number;
  canDecide: boolean;
  selectedId?: string;
}) {
  const live = useLiveTopics(["inbox"]);
  const queryClient = useQueryClient();
  const { data, error, dataUpdatedAt } = useQuery({
    queryKey: inboxQueryKey,
    queryFn: ({ signal }) => fetchInbox(signal),
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: refetchIntervalFor(live),
  });
  const serverNow = useServerNow(data.asOf, dataUpdatedAt);
  const [sent, setSent] = useState<string[]>([]);
  const items = data.items.filter((i) => !sent.includes(i.id));
  const [selected, setSelected] = useState(() =>
    Math.max(0, selectedId ? items.findIndex((i) => i.id === selectedId) : 0),
  );
  const [pending, setPending] = useState<Pending | null>(null);
  const [editor, setEditor] = useState<Editor | null>(null);
  const [notice, setNotice] = useState<{ text: string; error: boolean } | null>(null);
  const rows = useRef<Array<HTMLElement | null>>([]);
  const current = items[Math.min(selected, items.length - 1)];

  const send = useCallback(
    async (p: Pending) => {
      setPending(null);
      try {
        await decideInbox(p.id, p.body);
        setSent((s) => [...s, p.id]);
        setNotice({ text: `${p.label}: sent`, error: false });
      } catch (err) {
        setNotice({ text: `${p.label}: ${(err as Error).message}`, error: true });
      }
      await queryClient.invalidateQueries({ queryKey: allInboxQueryKey });
    },
    [queryClient],
  );

  // The undo window: the decision goes out when it ends.
  useEffect(() => {
    if (!pending) return;
    const t = setTimeout(() => void send(pending), Math.max(0, pending.sendAt - Date.now()));
    return () => clearTimeout(t);
  }, [pending, send]);

  const decide = useCallback(
    (item: InboxEntry, body: InboxDecisionRequest, label: string) => {
      if (pending) void send(pending);
      setEditor(null);
      setPending({
        id: item.id,
        body,
        label: `${label} "${item.summary}"`,
        sendAt: Date.now() + UNDO_S * 1000,
      });
      // Focus moves on to the next item.
      const next = items.indexOf(item) + 1;
      setSelected(next < items.length ? next : Math.max(0, items.length - 1));
    },
    [items, pending, send],
  );

  const startEdit = useCallback((item: InboxEntry, mode: Editor["mode"]) => {
    const command = typeof item.input?.command === "string" ? item.input.command : "";
    setEditor({
      id: item.id,
      mode,
      text: mode === "edit" ? command : mode === "always" ? (exactSubject(item) ?? "") : "",
      project: item.project ?? "",
    });
  }, []);

  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === "TEXTAREA" || t.tagName === "INPUT")) return;
      if (e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key === "j") setSelected((s) => Math.min(items.length - 1, s + 1));
      else if (e.key === "k") setSelected((s) => Math.max(0, s - 1));
      else if (!canDecide || !current || pending?.id === current.id) return;
      else if (current.kind === "notice") return;
      else if (e.key === "a" && current.kind !== "question")
        decide(current, { decision: "allow" }, "Approve");
      else if (e.key === "d") startEdit(current, "deny");
      else if (
        e.key === "e" &&
        current.kind === "permission" &&
        typeof current.input?.command === "string"
      )
        startEdit(current, "edit");
      else return;
      e.preventDefault();
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [items.length, current, canDecide, pending, decide, startEdit]);

  useEffect(() => {
    rows.current[selected]?.scrollIntoView?.({ block: "nearest" });
  }, [selected]);

  return (
    <div className="grid gap-4">
      <div className="flex min-h-8 flex-wrap items-center gap-x-4 gap-y-2">
        <h1 className="text-lg font-semibold tracking-tight">Inbox</h1>
        <span
          data-testid="inbox-waiting"
          role="status"
          className="text-sm text-muted-fg tabular-nums"
        >
          {items.length} waiting · oldest first
          {canDecide
            ? " · j/k move, a approve, d deny, e edit"
            : " · viewers see, approvers decide"}
        </span>
        {canDecide && (
          <div className="sm:ml-auto">
            <PushToggle />
          </div>
        )}
      </div>
      {error && (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          Could not refresh the inbox ({error.message}); showing the last data received.
        </p>
      )}
      {pending && (
        <div
          role="status"
          data-testid="inbox-undo"
          className="flex flex-wrap items-center gap-3 rounded-md border border-primary/40 bg-running-bg px-3 py-2 text-sm"
        >
          <span className="min-w-0 break-words">
            {pending.label}: sending in {UNDO_S} s
          </span>
          <Button variant="outline" className="min-h-11" onClick={() => setPending(null)}>
            Undo
          </Button>
          <Button className="min-h-11" onClick={() => void send(pending)}>
            Send now
          </Button>
        </div>
      )}
      {notice && (
        <p
          role={notice.error ? "alert" : "status"}
          data-testid="inbox-notice"
          className={`rounded-md border px-3 py-2 text-sm break-words ${notice.error ? "border-failed/40 bg-failed-bg text-failed" : "border-border bg-card"}`}
        >
          {notice.text}
        </p>
      )}
      {items.length === 0 ? (
        <Card className="px-4 py-6 text-sm text-muted-fg">
          Nothing waits. Agents&apos; permission requests and plans appear here as they ask.
        </Card>
      ) : (
        <ol className="grid gap-3" aria-label="Waiting items">
          {items.map((item, i) => (
            <li
              key={item.id}
              ref={(el) => {
                rows.current[i] = el;
              }}
              data-testid="inbox-item"
              data-id={item.id}
              aria-current={i === selected ? "true" : undefined}
              onClick={() => setSelected(i)}
              className={`min-w-0 rounded-lg border bg-card p-3 ${i === selected ? "border-primary ring-1 ring-primary" : "border-border"} ${pending?.id === item.id ? "opacity-60" : ""}`}
            >
              <InboxItemDetail item={item} waitedMs={serverNow - Date.parse(item.createdAt)} />
              {canDecide && editor?.id === item.id && (
                <DecisionEditor item={item} editor={editor} setEditor={setEditor} decide={decide} />
              )}
              {item.kind === "notice" && (
                <p className="mt-2 text-xs text-muted-fg">
                  Shown only: answer it in the agent&apos;s terminal. It goes away when the session
                  moves on.
                </p>
              )}
              {canDecide &&
                item.kind === "question" &&
                editor?.id !== item.id &&
                pending?.id !== item.id && (
                  <QuestionAnswer
                    itemId={item.id}
                    input={item.input}
                    onAnswer={(answers) =>
                      decide(item, { decision: "allow", editedInput: { answers } }, "Answer")
                    }
                  />
                )}
              {canDecide &&
                item.kind !== "notice" &&
                editor?.id !== item.id &&
                pending?.id !== item.id && (
                  <div className="mt-3 flex flex-wrap gap-2">
                    {item.kind !== "question" && (
                      <Button
                        className="min-h-11 min-w-11"
                        onClick={() => decide(item, { decision: "allow" }, "Approve")}
                      >
                        Approve
                      </Button>
                    )}
                    <Button
                      variant="outline"
                      className="min-h-11 min-w-11"
                      onClick={() => startEdit(item, "deny")}
                    >
                      {item.kind === "question" ? "Decline…" : "Deny…"}
                    </Button>
                    {item.kind === "permission" && typeof item.input?.command === "string" && (
                      <Button
                        variant="outline"
                        className="min-h-11 min-w-11"
                        onClick={() => startEdit(item, "edit")}
                      >
                        Edit command…
                      </Button>
                    )}
                    {item.kind === "plan" && (
                      <Button
                        variant="outline"
                        className="min-h-11 min-w-11"
                        onClick={() => startEdit(item, "notes")}
                      >
                        Approve with notes…
                      </Button>
                    )}
                    {item.kind === "permission" && item.toolName && (
                      <Button
                        variant="outline"
                        className="min-h-11 min-w-11"
                        onClick={() => startEdit(item, "always")}
                      >
                        Always allow…
                      </Button>
                    )}
                  </div>
                )}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
