"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";

import { refetchIntervalFor, useLiveTopics } from "@/components/live/use-live-topics";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Input, Select } from "@/components/ui/input";
import { createInboxRule, deleteInboxRule, fetchInboxRules } from "@/lib/api/fetchers/inbox";
import { inboxRulesQueryKey as rulesQueryKey } from "@/lib/api/query-keys";
import type { InboxRuleView } from "@/lib/view-models/inbox";

/** The inbox's allow/deny rules, and for approvers a form to add one and a button to delete. */
export function InboxRules({ initial, canEdit }: { initial: InboxRuleView[]; canEdit: boolean }) {
  const live = useLiveTopics(["inbox-rules"]);
  const queryClient = useQueryClient();
  const { data } = useQuery({
    queryKey: rulesQueryKey,
    queryFn: ({ signal }) => fetchInboxRules(signal),
    initialData: initial,
    refetchInterval: refetchIntervalFor(live),
  });
  const [error, setError] = useState<string | null>(null);
  const act = async (fn: () => Promise<unknown>): Promise<boolean> => {
    setError(null);
    try {
      await fn();
      await queryClient.invalidateQueries({ queryKey: rulesQueryKey });
      return true;
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      return false;
    }
  };

  const onSubmit = (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const f = new FormData(form);
    const text = (k: string) => String(f.get(k) ?? "").trim();
    const body = {
      effect: text("effect"),
      agent: text("agent"),
      tool: text("tool"),
      pattern: text("pattern"),
      project: text("project") || null,
      message: text("message") || null,
    };
    void act(() => createInboxRule(body)).then((ok) => ok && form.reset());
  };

  return (
    <section className="grid gap-3" aria-labelledby="inbox-rules-title">
      <h2 id="inbox-rules-title" className="text-base font-semibold">
        Rules
      </h2>
      <p className="text-sm text-muted-fg">
        Applied when an agent asks: a matching rule decides at once, deny before allow. Patterns are
        globs on the command, path or URL (<code>pytest *</code>, <code>src/**</code>).
      </p>
      {error ? (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm break-words text-failed"
        >
          {error}
        </p>
      ) : null}
      <Card>
        <CardContent className="overflow-x-auto p-0">
          <table className="w-full text-sm" aria-label="Inbox rules">
            <thead className="text-left text-xs text-muted-fg">
              <tr>
                <th className="px-3 py-2">Rule</th>
                <th className="px-3 py-2">Applied</th>
                <th className="px-3 py-2">By</th>
                {canEdit ? (
                  <th className="px-3 py-2">
                    <span className="sr-only">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {data.length === 0 ? (
                <tr>
                  <td colSpan={4} className="px-3 py-4 text-muted-fg">
                    No rules yet: every permission waits for a person.
                    {canEdit ? " Add one below, or use “Always allow…” on a waiting item." : ""}
                  </td>
                </tr>
              ) : null}
              {data.map((r) => (
                <tr
                  key={r.id}
                  data-testid="inbox-rule"
                  className="border-t border-border align-top"
                >
                  <td className="px-3 py-2">
                    <span
                      className={`mr-2 rounded px-1.5 py-0.5 text-xs font-medium ${r.effect === "deny" ? "bg-failed-bg text-failed" : "bg-succeeded-bg text-succeeded"}`}
                    >
                      {r.effect}
                    </span>
                    <span className="font-mono break-all">
                      {r.tool}({r.pattern})
                    </span>
                    <span className="text-muted-fg">
                      {" "}
                      {r.project === null ? "everywhere" : `in ${r.project}`}
                      {r.agent === "any" ? "" : ` · ${r.agent}`}
                    </span>
                    {r.message ? (
                      <p className="text-xs break-words text-muted-fg">“{r.message}”</p>
                    ) : null}
                  </td>
                  <td className="px-3 py-2 tabular-nums">{r.appliedCount}×</td>
                  <td className="px-3 py-2 break-words">{r.createdBy}</td>
                  {canEdit ? (
                    <td className="px-3 py-2 text-right">
                      <Button
                        variant="outline"
                        className="min-h-11"
                        aria-label={`Delete rule ${r.label}`}
                        onClick={() => void act(() => deleteInboxRule(r.id))}
                      >
                        Delete
                      </Button>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </CardContent>
      </Card>
      {canEdit ? (
        <Card>
          <CardHeader>
            <CardTitle>Add a rule</CardTitle>
          </CardHeader>
          <CardContent>
            <form
              onSubmit={onSubmit}
              className="flex flex-wrap items-end gap-3 text-sm"
              aria-label="Add an inbox rule"
            >
              <label className="grid gap-1">
                Effect
                <Select name="effect" defaultValue="allow" className="min-h-11">
                  <option value="allow">allow</option>
                  <option value="deny">deny</option>
                </Select>
              </label>
              <label className="grid gap-1">
                Tool
                <Input name="tool" required defaultValue="Bash" className="min-h-11 w-32" />
              </label>
              <label className="grid gap-1">
                Pattern
                <Input
                  name="pattern"
                  required
                  placeholder="pytest *"
                  className="min-h-11 w-56 max-w-full font-mono"
                />
              </label>
              <label className="grid gap-1">
                Project (empty: everywhere)
                <Input name="project" className="min-h-11 w-40" />
              </label>
              <label className="grid gap-1">
                Agent
                <Select name="agent" defaultValue="any" className="min-h-11">
                  <option value="any">any</option>
                  <option value="claude-code">claude-code</option>
                  <option value="opencode">opencode</option>
                </Select>
              </label>
              <label className="grid gap-1">
                Message to the model (deny)
                <Input name="message" className="min-h-11 w-56 max-w-full" />
              </label>
              <Button type="submit" className="min-h-11">
                Add rule
              </Button>
            </form>
          </CardContent>
        </Card>
      ) : null}
    </section>
  );
}
