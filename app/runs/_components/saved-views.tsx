"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Bookmark, BookmarkPlus, Pencil, X } from "lucide-react";
import Link from "next/link";
import { useState } from "react";

import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import {
  createSavedView,
  deleteSavedView,
  fetchSavedViews,
  updateSavedView,
} from "@/lib/api/fetchers/views";
import { savedViewsQueryKey } from "@/lib/api/query-keys";
import { runListSearch, type RunListQuery } from "@/lib/paths";
import { cn } from "@/lib/utils";
import type { SavedViewView } from "@/lib/view-models";

const PAGE = "runs";

/** An inline name field (save or rename): Enter submits, Escape cancels. */
function NameForm({
  label,
  initial,
  onSubmit,
  onCancel,
  pending,
}: {
  label: string;
  initial: string;
  onSubmit: (name: string) => void;
  onCancel: () => void;
  pending: boolean;
}) {
  return (
    <form
      className="flex items-center gap-1"
      onSubmit={(e) => {
        e.preventDefault();
        const name = String(new FormData(e.currentTarget).get("name") ?? "").trim();
        if (name) onSubmit(name);
      }}
    >
      <Input
        name="name"
        aria-label={label}
        defaultValue={initial}
        autoFocus
        maxLength={80}
        placeholder="View name"
        className="h-7 w-44"
        onKeyDown={(e) => e.key === "Escape" && onCancel()}
      />
      <Button type="submit" size="sm" disabled={pending}>
        Save
      </Button>
      <Button size="sm" variant="ghost" onClick={onCancel}>
        Cancel
      </Button>
    </form>
  );
}

function Chip({
  view,
  active,
  onRename,
  onDelete,
}: {
  view: SavedViewView;
  active: boolean;
  onRename: () => void;
  onDelete: () => void;
}) {
  return (
    <li
      className={cn(
        "flex items-center rounded-full border text-xs",
        active
          ? "border-primary bg-primary/10 text-foreground"
          : "border-border bg-card text-muted-fg",
      )}
    >
      <Link
        href={`/runs${view.query ? `?${view.query}` : ""}`}
        aria-current={active ? "page" : undefined}
        className="flex items-center gap-1 rounded-full py-1 pr-1 pl-2.5 hover:text-foreground"
      >
        <Bookmark aria-hidden className="size-3" />
        {view.name}
      </Link>
      <button
        type="button"
        onClick={onRename}
        aria-label={`Rename view ${view.name}`}
        title="Rename"
        className="rounded-full p-1 hover:text-foreground"
      >
        <Pencil aria-hidden className="size-3" />
      </button>
      <button
        type="button"
        onClick={onDelete}
        aria-label={`Delete view ${view.name}`}
        title="Delete"
        className="mr-1 rounded-full p-1 hover:text-failed"
      >
        <X aria-hidden className="size-3" />
      </button>
    </li>
  );
}

/**
 * The person's saved views of /runs as chips above the table: a chip opens its URL (filters and
 * sort), the current URL can be saved under a name, and each view renamed or deleted. Views are
 * private to their owner (`/api/views`).
 */
export function SavedViews({ query, initial }: { query: RunListQuery; initial: SavedViewView[] }) {
  const client = useQueryClient();
  const { data: views } = useQuery({
    queryKey: savedViewsQueryKey(PAGE),
    queryFn: ({ signal }) => fetchSavedViews(PAGE, signal),
    initialData: initial,
  });
  const [editing, setEditing] = useState<"new" | number | null>(null);
  const current = runListSearch(query);
  const done = () => {
    setEditing(null);
    return client.invalidateQueries({ queryKey: savedViewsQueryKey(PAGE) });
  };
  const save = useMutation({
    mutationFn: (name: string) => createSavedView(PAGE, name, current),
    onSuccess: done,
  });
  const rename = useMutation({
    mutationFn: ({ id, name }: { id: number; name: string }) => updateSavedView(id, { name }),
    onSuccess: done,
  });
  const remove = useMutation({ mutationFn: (id: number) => deleteSavedView(id), onSuccess: done });
  const error = save.error ?? rename.error ?? remove.error;
  const matching = views.some((v) => v.query === current);

  return (
    <div className="flex flex-wrap items-center gap-2" aria-label="Saved views" role="group">
      {views.length > 0 && (
        <ul className="flex flex-wrap items-center gap-1.5">
          {views.map((v) =>
            editing === v.id ? (
              <li key={v.id}>
                <NameForm
                  label={`New name for ${v.name}`}
                  initial={v.name}
                  pending={rename.isPending}
                  onCancel={() => setEditing(null)}
                  onSubmit={(name) => rename.mutate({ id: v.id, name })}
                />
              </li>
            ) : (
              <Chip
                key={v.id}
                view={v}
                active={v.query === current}
                onRename={() => setEditing(v.id)}
                onDelete={() => remove.mutate(v.id)}
              />
            ),
          )}
        </ul>
      )}
      {editing === "new" ? (
        <NameForm
          label="Name of the new view"
          initial=""
          pending={save.isPending}
          onCancel={() => setEditing(null)}
          onSubmit={(name) => save.mutate(name)}
        />
      ) : (
        !matching && (
          <Button
            size="sm"
            variant="ghost"
            className="text-muted-fg"
            onClick={() => setEditing("new")}
            title="Save these filters and this sort as a named view"
          >
            <BookmarkPlus aria-hidden />
            Save view
          </Button>
        )
      )}
      {error && (
        <p role="alert" className="text-xs text-failed">
          {error.message}
        </p>
      )}
    </div>
  );
}
