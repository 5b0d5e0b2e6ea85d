"use client";

import { useState } from "react";

import { Input } from "@/components/ui/input";

/**
 * The last lines of a run's output (from `run.output` frames while it runs, `run.end` at the end),
 * monospace and pinned to the newest line, with a search that keeps only the matching lines
 * (case-insensitive substring) and says how many match.
 */
export function OutputTail({ lines, live }: { lines: readonly string[]; live: boolean }) {
  const [query, setQuery] = useState("");
  const q = query.trim().toLowerCase();
  const shown = q ? lines.filter((l) => l.toLowerCase().includes(q)) : lines;
  return (
    <div className="grid gap-1.5">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1.5">
        <div className="text-xs text-muted-fg" aria-live="polite">
          {q
            ? `${shown.length} of ${lines.length} lines match`
            : `Last ${lines.length} lines of output${live ? " · live" : ""}`}
        </div>
        <Input
          type="search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          placeholder="Search the output"
          aria-label="Search the output"
          className="ml-auto h-8 w-full text-xs sm:w-64"
        />
      </div>
      {/* column-reverse keeps the view scrolled to the newest line without an effect. */}
      <div
        className="flex max-h-80 flex-col-reverse overflow-auto rounded-md border border-border bg-muted/50"
        tabIndex={0}
        aria-label="Output tail"
      >
        <pre className="p-3 font-mono text-xs leading-5 whitespace-pre">
          {shown.length > 0 ? shown.join("\n") : q ? "No line matches." : ""}
        </pre>
      </div>
    </div>
  );
}
