"use client";

import { ArrowDown, ArrowUp, Plus, Trash2 } from "lucide-react";
import { useId } from "react";
import { flushSync } from "react-dom";

import { buttonVariants } from "@/components/ui/button";
import { Select } from "@/components/ui/input";
import type { PlanItemView } from "@/lib/view-models/plans";

/** An item being edited; `uid` keeps React's identity (and focus) across reorders. */
export interface EditableItem {
  uid: string;
  content: string;
  priority: "" | "high" | "medium" | "low";
}

let nextUid = 0;

/** Editable copies of a plan's items. */
export function toEditable(items: readonly PlanItemView[]): EditableItem[] {
  return items.map((i) => ({
    uid: `item-${nextUid++}`,
    content: i.content,
    priority: i.priority ?? "",
  }));
}

/** The edited items as plan items (text trimmed; empty priority = none). */
export function fromEditable(items: readonly EditableItem[]): PlanItemView[] {
  return items.map((i) => ({
    content: i.content.trim(),
    priority: i.priority === "" ? null : i.priority,
  }));
}

/** Most items a plan may have (the protocol's limit). */
export const MAX_PLAN_ITEMS = 200;

/**
 * Edits a plan's items: text, priority, order (up/down buttons; focus follows the moved item so a
 * keyboard user can keep pressing), add and remove. Controlled: `onChange` receives the new list.
 */
export function PlanItemsEditor({
  items,
  onChange,
  disabled,
}: {
  items: EditableItem[];
  onChange: (items: EditableItem[]) => void;
  disabled?: boolean;
}) {
  const base = useId();
  const domId = (key: string) => `${base}-${key}`;
  const focus = (key: string) => document.getElementById(domId(key))?.focus();

  const move = (index: number, delta: -1 | 1) => {
    const target = index + delta;
    const item = items[index];
    if (!item || target < 0 || target >= items.length) return;
    const next = [...items];
    next.splice(index, 1);
    next.splice(target, 0, item);
    // Re-render now so the moved item's buttons exist at their new place, then keep focus on them
    // (or on the other arrow when this one just became disabled at the top or bottom).
    flushSync(() => onChange(next));
    const atEdge = (delta < 0 && target === 0) || (delta > 0 && target === next.length - 1);
    focus(`${item.uid}:${atEdge ? (delta < 0 ? "down" : "up") : delta < 0 ? "up" : "down"}`);
  };
  const update = (index: number, patch: Partial<EditableItem>) =>
    onChange(items.map((it, i) => (i === index ? { ...it, ...patch } : it)));
  const remove = (index: number) => {
    const neighbour = items[index + 1] ?? items[index - 1];
    flushSync(() => onChange(items.filter((_, i) => i !== index)));
    focus(neighbour ? `${neighbour.uid}:text` : "add");
  };
  const add = () => {
    const item: EditableItem = { uid: `item-${nextUid++}`, content: "", priority: "" };
    flushSync(() => onChange([...items, item]));
    focus(`${item.uid}:text`);
  };

  return (
    <div className="grid gap-2">
      <ol aria-label="Plan items (editable)" className="grid gap-2">
        {items.map((item, i) => (
          <li key={item.uid} className="flex items-start gap-2">
            <span className="mt-1.5 w-5 shrink-0 text-right text-xs text-muted-fg tabular-nums">
              {i + 1}.
            </span>
            <textarea
              id={domId(`${item.uid}:text`)}
              value={item.content}
              onChange={(e) => update(i, { content: e.currentTarget.value })}
              rows={Math.min(
                6,
                Math.max(1, Math.ceil(item.content.length / 90), item.content.split("\n").length),
              )}
              maxLength={20_000}
              disabled={disabled}
              aria-label={`Item ${i + 1} text`}
              aria-invalid={item.content.trim() === "" || undefined}
              className="min-h-8 min-w-0 flex-1 resize-y rounded-md border border-input bg-card px-2.5 py-1.5 text-[13px] leading-5 shadow-xs placeholder:text-muted-fg/70 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-ring aria-invalid:border-failed"
              placeholder="What should the agent do?"
            />
            <Select
              value={item.priority}
              onChange={(e) =>
                update(i, { priority: e.currentTarget.value as EditableItem["priority"] })
              }
              disabled={disabled}
              aria-label={`Item ${i + 1} priority`}
              className="w-28 shrink-0 text-[13px]"
            >
              <option value="">no priority</option>
              <option value="high">high</option>
              <option value="medium">medium</option>
              <option value="low">low</option>
            </Select>
            <div className="flex shrink-0 items-center">
              <button
                type="button"
                id={domId(`${item.uid}:up`)}
                className={buttonVariants({ variant: "ghost", size: "icon" })}
                onClick={() => move(i, -1)}
                disabled={disabled || i === 0}
                aria-label={`Move item ${i + 1} up`}
                title="Move up"
              >
                <ArrowUp aria-hidden />
              </button>
              <button
                type="button"
                id={domId(`${item.uid}:down`)}
                className={buttonVariants({ variant: "ghost", size: "icon" })}
                onClick={() => move(i, 1)}
                disabled={disabled || i === items.length - 1}
                aria-label={`Move item ${i + 1} down`}
                title="Move down"
              >
                <ArrowDown aria-hidden />
              </button>
              <button
                type="button"
                className={buttonVariants({ variant: "ghost", size: "icon" })}
                onClick={() => remove(i)}
                disabled={disabled || items.length <= 1}
                aria-label={`Remove item ${i + 1}`}
                title="Remove"
              >
                <Trash2 aria-hidden />
              </button>
            </div>
          </li>
        ))}
      </ol>
      <div>
        <button
          type="button"
          id={domId("add")}
          className={buttonVariants({ variant: "outline", size: "sm" })}
          onClick={add}
          disabled={disabled || items.length >= MAX_PLAN_ITEMS}
        >
          <Plus aria-hidden />
          Add item
        </button>
      </div>
    </div>
  );
}
