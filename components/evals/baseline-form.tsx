"use client";

import { useId, useState, type ReactNode } from "react";

import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { type BaselineBody } from "@/lib/api/fetchers/baselines";
import { BASELINE_VALUE_MAX } from "@/lib/protocol/frames";
import { cn } from "@/lib/utils";
import type { BaselineView, DraftSettings } from "@/lib/view-models/evals";

/** Metrics offered in the form (any other name may be typed). */
export const BASELINE_METRICS = ["tau", "outputTokPerS", "ttftMsMedian", "tpotMsMedian"] as const;

/** "block_size=16, tree=ddtree-8" → settings; numbers, true/false and null are typed. @throws Error naming a part without "=". */
export function parseSettings(text: string): DraftSettings {
  const out: DraftSettings = {};
  for (const part of text.split(/[,\n]/)) {
    const p = part.trim();
    if (!p) continue;
    const eq = p.indexOf("=");
    if (eq <= 0) throw new Error(`"${p}" is not name=value`);
    const key = p.slice(0, eq).trim();
    const raw = p.slice(eq + 1).trim();
    out[key] =
      raw === "true"
        ? true
        : raw === "false"
          ? false
          : raw === "null"
            ? null
            : raw !== "" && Number.isFinite(Number(raw))
              ? Number(raw)
              : raw;
  }
  return out;
}

/** Settings back to the form's text: "block_size=16, tree=ddtree-8". */
export function settingsText(settings: DraftSettings): string {
  return Object.entries(settings)
    .map(([k, v]) => `${k}=${v === null ? "null" : String(v)}`)
    .join(", ");
}

interface BaselineFormProps {
  /** The baseline being edited; absent to create one. */
  initial?: BaselineView;
  busy: boolean;
  /** The server's refusal (409 name taken, 400…), shown under the form. */
  serverError: string | null;
  onSubmit: (body: BaselineBody) => void;
  onCancel?: () => void;
  submitLabel: string;
}

/** Fields of a baseline (name, metric, value, ± tolerance, dataset, draft settings, source link), checked before sending. */
export function BaselineForm({
  initial,
  busy,
  serverError,
  onSubmit,
  onCancel,
  submitLabel,
}: BaselineFormProps) {
  const id = useId();
  const [error, setError] = useState<string | null>(null);
  const editing = initial !== undefined;

  const submit = (form: HTMLFormElement) => {
    const fd = new FormData(form);
    const text = (name: string) => String(fd.get(name) ?? "").trim();
    const name = text("name");
    const metric = text("metric");
    const value = Number(text("value"));
    const tolText = text("tolerance");
    const tolerance = tolText === "" ? null : Number(tolText);
    if (!name) return setError("Give the baseline a name.");
    if (!metric) return setError("Name the metric (tau for acceptance length).");
    if (text("value") === "" || !Number.isFinite(value))
      return setError("The value must be a number.");
    if (Math.abs(value) > BASELINE_VALUE_MAX)
      return setError(
        `The value must be between −${BASELINE_VALUE_MAX.toExponential()} and ${BASELINE_VALUE_MAX.toExponential()}.`,
      );
    if (
      tolerance !== null &&
      !(Number.isFinite(tolerance) && tolerance >= 0 && tolerance <= BASELINE_VALUE_MAX)
    )
      return setError(
        `The tolerance must be a number from 0 to ${BASELINE_VALUE_MAX.toExponential()}, or empty.`,
      );
    let settings: DraftSettings;
    try {
      settings = parseSettings(text("settings"));
    } catch (err) {
      return setError(`Settings: ${(err as Error).message}.`);
    }
    const sourceUrl = text("sourceUrl");
    if (sourceUrl && !/^https?:\/\/\S+$/.test(sourceUrl))
      return setError("The source must be an http(s) URL.");
    setError(null);
    onSubmit({
      name,
      metric,
      value,
      tolerance,
      dataset: text("dataset") || null,
      settings,
      sourceUrl: sourceUrl || null,
    });
  };

  const shown = error ?? serverError;
  return (
    <form
      aria-label={editing ? `Edit baseline ${initial.name}` : "New baseline"}
      className="grid gap-3"
      onSubmit={(e) => {
        e.preventDefault();
        submit(e.currentTarget);
      }}
    >
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <Field id={`${id}-name`} label="Name" hint="shown on the line">
          <Input
            id={`${id}-name`}
            name="name"
            required
            maxLength={200}
            defaultValue={initial?.name}
            placeholder="DFlash DDTree-8 (public)"
            disabled={busy}
          />
        </Field>
        <Field id={`${id}-metric`} label="Metric" hint="tau = acceptance length">
          <Input
            id={`${id}-metric`}
            name="metric"
            required
            maxLength={100}
            defaultValue={initial?.metric ?? "tau"}
            list={`${id}-metrics`}
            disabled={busy}
          />
          <datalist id={`${id}-metrics`}>
            {BASELINE_METRICS.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </Field>
        <Field id={`${id}-value`} label="Value" hint="τ in tokens per verify step">
          <Input
            id={`${id}-value`}
            name="value"
            required
            inputMode="decimal"
            defaultValue={initial?.value}
            placeholder="12.4"
            disabled={busy}
          />
        </Field>
        <Field id={`${id}-tolerance`} label="Tolerance ±" hint="optional band around the line">
          <Input
            id={`${id}-tolerance`}
            name="tolerance"
            inputMode="decimal"
            defaultValue={initial?.tolerance ?? ""}
            placeholder="0.3"
            disabled={busy}
          />
        </Field>
        <Field id={`${id}-dataset`} label="Dataset" hint="optional, e.g. humaneval">
          <Input
            id={`${id}-dataset`}
            name="dataset"
            maxLength={200}
            defaultValue={initial?.dataset ?? ""}
            disabled={busy}
          />
        </Field>
        <Field id={`${id}-settings`} label="Draft settings" hint="name=value, comma-separated">
          <Input
            id={`${id}-settings`}
            name="settings"
            defaultValue={initial ? settingsText(initial.settings) : ""}
            placeholder="tree=ddtree-8, block_size=16"
            disabled={busy}
          />
        </Field>
        <Field
          id={`${id}-source`}
          label="Source URL"
          hint="optional link to the paper or run"
          className="sm:col-span-2"
        >
          <Input
            id={`${id}-source`}
            name="sourceUrl"
            type="url"
            maxLength={2000}
            defaultValue={initial?.sourceUrl ?? ""}
            placeholder="https://…"
            disabled={busy}
          />
        </Field>
      </div>
      {shown && (
        <p role="alert" className="text-xs font-medium text-failed">
          {shown}
        </p>
      )}
      <div className="flex items-center gap-2">
        <Button type="submit" disabled={busy}>
          {submitLabel}
        </Button>
        {onCancel && (
          <Button variant="ghost" onClick={onCancel} disabled={busy}>
            Cancel
          </Button>
        )}
        {busy && <span className="text-xs text-muted-fg">Saving…</span>}
      </div>
    </form>
  );
}

function Field({
  id,
  label,
  hint,
  className,
  children,
}: {
  id: string;
  label: string;
  hint: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={cn("grid min-w-0 gap-1", className)}>
      <label htmlFor={id} className="text-xs font-medium">
        {label} <span className="font-normal text-muted-fg">· {hint}</span>
      </label>
      {children}
    </div>
  );
}
