"use client";

import { CardDescription } from "@/components/ui/card";
import { Select } from "@/components/ui/input";
import type { RunCheckpointView } from "@/lib/view-models/evals";

import { checkpointName } from "./format";

/** "at step 4,000", or "all results" for results that name no checkpoint. */
export function atCheckpoint(c: RunCheckpointView): string {
  return c.key === "none" ? "all results (no checkpoint named)" : `at ${checkpointName(c)}`;
}

/** The checkpoint menu of a chart (the latest marked), or just its name when there is only one. */
export function CheckpointPicker({
  checkpoints,
  selected,
  latestKey,
  onPick,
  id,
}: {
  checkpoints: RunCheckpointView[];
  selected: RunCheckpointView;
  latestKey: string | null;
  onPick: (key: string) => void;
  id: string;
}) {
  if (checkpoints.length === 1)
    return <CardDescription className="ml-auto">{atCheckpoint(selected)}</CardDescription>;
  return (
    <div className="ml-auto flex items-center gap-2 text-xs text-muted-fg">
      <label htmlFor={id}>checkpoint</label>
      <Select
        id={id}
        value={selected.key}
        onChange={(e) => onPick(e.currentTarget.value)}
        className="h-7 text-xs"
      >
        {checkpoints.map((c) => (
          <option key={c.key} value={c.key}>
            {checkpointName(c)}
            {c.key === latestKey ? " (latest)" : ""}
          </option>
        ))}
      </Select>
    </div>
  );
}
