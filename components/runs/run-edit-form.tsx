"use client";

import { useState, type FormEvent } from "react";

import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import type { RunDetail } from "@/lib/view-models";

/** What the form submits: the fields of `PATCH /api/runs/:id` a person edits. */
export interface RunEdit {
  name: string;
  tags: string[];
  notes: string | null;
}

/** Splits a comma-separated tag field into trimmed, distinct, non-empty tags (order kept). */
export function parseTagField(text: string): string[] {
  return [
    ...new Set(
      text
        .split(",")
        .map((t) => t.trim())
        .filter((t) => t.length > 0),
    ),
  ];
}

interface RunEditFormProps {
  run: Pick<RunDetail, "name" | "tags" | "notes">;
  busy: boolean;
  error: string | null;
  onSave: (edit: RunEdit) => void;
  onCancel: () => void;
}

/** Inline editor of a run's name, tags (comma-separated) and notes; Escape cancels. */
export function RunEditForm({ run, busy, error, onSave, onCancel }: RunEditFormProps) {
  const [name, setName] = useState(run.name);
  const [tags, setTags] = useState(run.tags.join(", "));
  const [notes, setNotes] = useState(run.notes ?? "");

  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSave({ name: name.trim(), tags: parseTagField(tags), notes: notes.trim() ? notes : null });
  };

  return (
    <form
      aria-label="Edit run"
      onSubmit={submit}
      onKeyDown={(e) => e.key === "Escape" && onCancel()}
      className="grid max-w-3xl gap-3 rounded-lg border border-border bg-card p-3 shadow-xs"
    >
      <div className="grid gap-1">
        <label htmlFor="run-edit-name" className="text-xs font-medium">
          Name
        </label>
        <Input
          id="run-edit-name"
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          required
          maxLength={500}
          disabled={busy}
          autoFocus
        />
      </div>
      <div className="grid gap-1">
        <label htmlFor="run-edit-tags" className="text-xs font-medium">
          Tags <span className="font-normal text-muted-fg">(comma-separated)</span>
        </label>
        <Input
          id="run-edit-tags"
          value={tags}
          onChange={(e) => setTags(e.currentTarget.value)}
          disabled={busy}
          placeholder="e.g. tp8, mtp, baseline"
        />
      </div>
      <div className="grid gap-1">
        <label htmlFor="run-edit-notes" className="text-xs font-medium">
          Notes
        </label>
        <textarea
          id="run-edit-notes"
          value={notes}
          onChange={(e) => setNotes(e.currentTarget.value)}
          rows={3}
          maxLength={20_000}
          disabled={busy}
          placeholder="What this run was for, what to remember about it"
          className="rounded-md border border-input bg-card px-2.5 py-1.5 text-sm shadow-xs placeholder:text-muted-fg/70 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring disabled:opacity-50"
        />
      </div>
      {error && (
        <p role="alert" className="text-sm text-failed">
          {error}
        </p>
      )}
      <div className="flex gap-2">
        <Button type="submit" size="sm" disabled={busy || name.trim() === ""}>
          {busy ? "Saving…" : "Save"}
        </Button>
        <Button variant="ghost" size="sm" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
