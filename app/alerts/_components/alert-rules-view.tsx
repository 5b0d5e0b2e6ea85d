"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";

import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { describeAlertRule } from "@/lib/alerts/describe";
import type { AlertRuleInput } from "@/lib/alerts/rule";
import { createAlertRule, deleteAlertRule, updateAlertRule } from "@/lib/api/fetchers/alerts";
import { runPath } from "@/lib/paths";
import type { AlertRuleView } from "@/lib/view-models/alerts";

import { AlertRuleForm } from "./alert-rule-form";

const toInput = (r: AlertRuleView): AlertRuleInput => ({
  name: r.name,
  kind: r.kind,
  tag: r.tag,
  metricKey: r.metricKey,
  condition: r.condition,
  threshold: r.threshold,
  forSteps: r.forSteps,
  forSeconds: r.forSeconds,
  enabled: r.enabled,
});

/** The alert rules table, and for approvers a form to add or edit one and buttons to pause or delete. */
export function AlertRulesView({
  initial,
  canEdit,
}: {
  initial: AlertRuleView[];
  canEdit: boolean;
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  // The rule whose settings the form below holds (null: the form adds a new one).
  const [editing, setEditing] = useState<AlertRuleView | null>(null);
  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
      router.refresh();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <div className="grid w-full grid-cols-[minmax(0,1fr)] gap-4">
      <h1 className="text-xl font-semibold">Alert rules</h1>
      {error ? (
        <p
          role="alert"
          className="rounded-md border border-failed/40 bg-failed-bg px-3 py-2 text-sm text-failed"
        >
          {error}
        </p>
      ) : null}
      <Card>
        <CardContent
          className="scroll-x overflow-x-auto p-0"
          tabIndex={0}
          role="region"
          aria-label="Alert rules, scrolls sideways on a narrow screen"
        >
          <table className="w-full text-sm" aria-label="Alert rules">
            <thead className="text-left text-xs text-muted-fg">
              <tr>
                <th className="px-3 py-2">Name</th>
                <th className="hidden px-3 py-2 sm:table-cell">Runs</th>
                <th className="px-3 py-2">Condition</th>
                <th className="px-3 py-2">Firing on</th>
                {canEdit ? (
                  <th className="px-3 py-2">
                    <span className="sr-only">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {initial.length === 0 ? (
                <tr>
                  <td colSpan={5} className="px-3 py-4 text-muted-fg">
                    No alert rules yet.{canEdit ? " Add one below." : " An approver can add them."}
                  </td>
                </tr>
              ) : null}
              {initial.map((r) => (
                <tr key={r.id} className="border-t border-border">
                  <td className="px-3 py-2 font-medium">
                    {r.name}
                    {r.enabled ? null : (
                      <span className="ml-2 text-xs text-muted-fg">(paused)</span>
                    )}
                    {/* On a phone the Runs column folds under the name. */}
                    <div className="text-xs font-normal text-muted-fg sm:hidden">
                      {r.kind}
                      {r.tag ? ` · tag ${r.tag}` : ""}
                    </div>
                  </td>
                  <td className="hidden px-3 py-2 sm:table-cell">
                    {r.kind}
                    {r.tag ? ` · tag ${r.tag}` : ""}
                  </td>
                  <td className="px-3 py-2 [overflow-wrap:anywhere]">{describeAlertRule(r)}</td>
                  <td className="px-3 py-2">
                    {r.firing.length === 0 ? (
                      <span className="text-muted-fg">none</span>
                    ) : (
                      r.firing.map((f) => (
                        <Link
                          key={f.runId}
                          href={runPath(f.runId)}
                          className="mr-2 text-failed hover:underline"
                          title={f.detail}
                        >
                          {f.runName}
                        </Link>
                      ))
                    )}
                  </td>
                  {canEdit ? (
                    <td className="px-3 py-2 text-right">
                      {/* Stacked on a phone (three buttons side by side scrolled the table sideways). */}
                      <div className="flex flex-col items-end gap-1 sm:flex-row sm:justify-end">
                        <Button
                          size="sm"
                          variant="outline"
                          onClick={() =>
                            void act(() =>
                              updateAlertRule(r.id, {
                                ...toInput(r),
                                enabled: !r.enabled,
                              }),
                            )
                          }
                        >
                          {r.enabled ? "Pause" : "Resume"}
                        </Button>
                        <Button
                          size="sm"
                          variant="outline"
                          aria-label={`Edit ${r.name}`}
                          onClick={() => setEditing(r)}
                        >
                          Edit
                        </Button>
                        <Button
                          size="sm"
                          variant="outline"
                          aria-label={`Delete ${r.name}`}
                          onClick={() => void act(() => deleteAlertRule(r.id))}
                        >
                          Delete
                        </Button>
                      </div>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </CardContent>
      </Card>
      {canEdit ? (
        <AlertRuleForm
          key={editing?.id ?? "new"}
          rule={editing}
          onSave={(body) =>
            act(async () => {
              if (editing) await updateAlertRule(editing.id, { ...body, enabled: editing.enabled });
              else await createAlertRule(body);
              setEditing(null);
            })
          }
          onCancel={() => setEditing(null)}
        />
      ) : null}
    </div>
  );
}
