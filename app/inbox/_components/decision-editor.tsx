"use client";

import { Button } from "@/components/ui/button";
import type { InboxDecisionRequest } from "@/lib/api/fetchers/inbox";
import type { InboxEntry } from "@/lib/view-models/inbox";

/** The open text editor of one item: deny with a message, approve with notes or an edited command, or "always allow" a pattern. */
export type DecisionEditorState = {
  id: string;
  mode: "deny" | "edit" | "always" | "notes";
  text: string;
  project: string;
};

/**
 * The form of a decision that needs words: the deny message (the agent reads it), notes with an
 * approval, the command to run instead, or the pattern and project of an "always allow" rule.
 * Submitting calls `decide` with the request body and its label; Cancel and Escape close it.
 */
export function DecisionEditor({
  item,
  editor,
  setEditor,
  decide,
}: {
  item: InboxEntry;
  editor: DecisionEditorState;
  setEditor: (e: DecisionEditorState | null) => void;
  decide: (item: InboxEntry, body: InboxDecisionRequest, label: string) => void;
}) {
  return (
    <form
      className="mt-3 grid gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        if (editor.mode === "deny")
          decide(item, { decision: "deny", message: editor.text.trim() || undefined }, "Deny");
        else if (editor.mode === "notes")
          decide(
            item,
            { decision: "allow", message: editor.text.trim() || undefined },
            "Approve with notes",
          );
        else if (editor.mode === "always")
          decide(
            item,
            {
              decision: "allow",
              alwaysAllow: {
                pattern: editor.text.trim(),
                project: editor.project.trim() || null,
              },
            },
            "Always allow",
          );
        else
          decide(
            item,
            { decision: "allow", editedInput: { command: editor.text } },
            "Approve edited",
          );
      }}
    >
      <label className="text-xs font-medium" htmlFor={`inbox-text-${item.id}`}>
        {editor.mode === "deny"
          ? "Why (the agent reads this)"
          : editor.mode === "notes"
            ? "Notes for the agent (it reads them with the approval)"
            : editor.mode === "always"
              ? `Always allow ${item.toolName ?? "this tool"} when it matches (glob: * matches anything)`
              : "Command to run instead"}
      </label>
      <textarea
        id={`inbox-text-${item.id}`}
        autoFocus
        className="min-h-20 w-full rounded-md border border-input bg-background p-2 font-mono text-sm"
        value={editor.text}
        onChange={(e) => setEditor({ ...editor, text: e.target.value })}
        onKeyDown={(e) => e.key === "Escape" && setEditor(null)}
      />
      {editor.mode === "always" && (
        <label className="grid gap-1 text-xs font-medium">
          Project (empty: everywhere)
          <input
            className="min-h-11 w-full rounded-md border border-input bg-background px-2 text-sm"
            value={editor.project}
            onChange={(e) => setEditor({ ...editor, project: e.target.value })}
          />
        </label>
      )}
      <div className="flex flex-wrap gap-2">
        <Button
          type="submit"
          className="min-h-11 min-w-11"
          disabled={editor.mode === "always" && !editor.text.trim()}
        >
          {editor.mode === "deny"
            ? "Deny"
            : editor.mode === "notes"
              ? "Approve with these notes"
              : editor.mode === "always"
                ? "Approve and add the rule"
                : "Approve edited"}
        </Button>
        <Button variant="outline" className="min-h-11 min-w-11" onClick={() => setEditor(null)}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
