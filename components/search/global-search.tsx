"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useId, useRef, useState } from "react";

import { fetchSearch } from "@/lib/api/fetchers/search";
import { searchQueryKey } from "@/lib/api/query-keys";
import { cn } from "@/lib/utils";
import { SEARCH_GROUPS, type SearchHit } from "@/lib/view-models/search";

const DEBOUNCE_MS = 150;

/** True when a key press belongs to a field the user is typing in (so `/` must not steal focus). */
function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/**
 * The top bar's global search: type to find runs, sessions, plans, hosts and checkpoints
 * (`GET /api/search`); `/` anywhere focuses it, arrows move, Enter opens, Escape closes.
 */
export function GlobalSearch() {
  const router = useRouter();
  const inputRef = useRef<HTMLInputElement>(null);
  const listId = useId();
  const [text, setText] = useState("");
  const [q, setQ] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);

  // Sync with the document: `/` focuses the box unless the user is typing somewhere else.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "/" || e.metaKey || e.ctrlKey || e.altKey || typingIn(e.target)) return;
      e.preventDefault();
      inputRef.current?.focus();
      inputRef.current?.select();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  // Debounce: one request per pause in typing, not per key.
  useEffect(() => {
    const t = setTimeout(() => setQ(text.trim()), DEBOUNCE_MS);
    return () => clearTimeout(t);
  }, [text]);

  const { data, isFetching, isError } = useQuery({
    queryKey: searchQueryKey(q),
    queryFn: ({ signal }) => fetchSearch(q, signal),
    enabled: q.length > 0,
    placeholderData: keepPreviousData,
    staleTime: 10_000,
  });

  const groups =
    data && q.length > 0
      ? SEARCH_GROUPS.map((g) => ({ ...g, hits: data[g.key] })).filter((g) => g.hits.length > 0)
      : [];
  const hits: SearchHit[] = groups.flatMap((g) => g.hits);
  // Position of each group's first hit in `hits` (the listbox's option index).
  const starts = groups.map((_, gi) => groups.slice(0, gi).reduce((n, g) => n + g.hits.length, 0));
  const shown = open && text.trim().length > 0;
  const current = Math.min(active, Math.max(0, hits.length - 1));

  const go = (hit: SearchHit | undefined) => {
    if (!hit) return;
    setOpen(false);
    inputRef.current?.blur();
    router.push(hit.href);
  };

  const onKeyDown = (e: React.KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "ArrowDown") {
      e.preventDefault();
      setOpen(true);
      setActive((i) => Math.min(i + 1, hits.length - 1));
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      setActive((i) => Math.max(i - 1, 0));
    } else if (e.key === "Enter") {
      e.preventDefault();
      go(hits[current]);
    } else if (e.key === "Escape") {
      setOpen(false);
      inputRef.current?.blur();
    }
  };

  return (
    // The box shrinks with the bar (a phone's top bar also holds the inbox count and the menu):
    // the input fills the wrapper, so it never draws over its neighbours.
    <div className="relative w-28 min-w-16 shrink sm:w-48 lg:w-64">
      <input
        ref={inputRef}
        type="search"
        role="combobox"
        aria-label="Search runs, sessions, plans, hosts and checkpoints"
        aria-expanded={shown}
        aria-controls={listId}
        aria-activedescendant={shown && hits.length > 0 ? `${listId}-${current}` : undefined}
        aria-autocomplete="list"
        placeholder="Search  /"
        autoComplete="off"
        spellCheck={false}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setActive(0);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={onKeyDown}
        className="h-8 w-full rounded-md border border-input bg-card px-2.5 text-sm text-foreground shadow-xs placeholder:text-muted-fg focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring"
      />
      {shown ? (
        // On a phone the box is narrow and sits mid-bar: the list spans the screen below the bar
        // instead of hanging off the box's right edge (it was cut at the left, issue 25 review).
        <div
          id={listId}
          role="listbox"
          aria-label="Search results"
          className="absolute top-9 right-0 z-40 max-h-[70vh] w-[min(92vw,28rem)] overflow-y-auto rounded-md border border-border bg-card py-1 text-sm shadow-lg max-sm:fixed max-sm:inset-x-2 max-sm:top-12 max-sm:w-auto"
        >
          {groups.map((g, gi) => (
            <div key={g.key} role="group" aria-label={g.label}>
              <div className="px-3 pt-2 pb-0.5 text-xs font-medium tracking-wide text-muted-fg uppercase">
                {g.label}
              </div>
              {g.hits.map((hit, hi) => {
                const i = starts[gi]! + hi;
                return (
                  <div
                    key={`${hit.kind}-${hit.id}`}
                    id={`${listId}-${i}`}
                    role="option"
                    aria-selected={i === current}
                    onMouseDown={(e) => e.preventDefault()}
                    onMouseEnter={() => setActive(i)}
                    onClick={() => go(hit)}
                    className={cn("cursor-pointer px-3 py-1.5", i === current && "bg-muted")}
                  >
                    <div className="truncate font-medium [overflow-wrap:anywhere]">{hit.title}</div>
                    {hit.detail ? (
                      // A checkpoint's URI is cut at its start: its end (run, step) tells them apart.
                      <div
                        title={hit.detail}
                        data-cut={hit.kind === "checkpoint" ? "start" : "end"}
                        className={cn(
                          "truncate text-xs text-muted-fg",
                          hit.kind === "checkpoint" && "text-left [direction:rtl]",
                        )}
                      >
                        <bdi>{hit.detail}</bdi>
                      </div>
                    ) : null}
                  </div>
                );
              })}
            </div>
          ))}
          {hits.length === 0 ? (
            <div className="px-3 py-2 text-muted-fg" role="status">
              {isError
                ? "Search failed; try again."
                : isFetching || q !== text.trim()
                  ? "Searching…"
                  : `Nothing matches “${text.trim()}”.`}
            </div>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
