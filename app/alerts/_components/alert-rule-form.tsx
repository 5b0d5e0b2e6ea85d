"use client";

import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Input, Select } from "@/components/ui/input";
import { ALERT_CONDITIONS, type AlertRuleInput } from "@/lib/alerts/rule";
import type { AlertRuleBody } from "@/lib/api/fetchers/alerts";
import { RUN_KIND_OPTIONS } from "@/lib/paths";
import type { AlertRuleView } from "@/lib/view-models/alerts";

/** The form's fields as the rule body the API takes (a new rule starts enabled). */
function bodyOf(form: HTMLFormElement): AlertRuleBody {
  const f = new FormData(form);
  const condition = String(f.get("condition")) as AlertRuleInput["condition"];
  const amount = Number(f.get("amount"));
  const unit = String(f.get("unit"));
  const threshold = String(f.get("threshold") ?? "").trim();
  return {
    name: String(f.get("name")),
    kind: String(f.get("kind")),
    tag: String(f.get("tag") ?? "").trim() || null,
    metricKey: String(f.get("metricKey")),
    condition,
    threshold: condition === "above" || condition === "below" ? Number(threshold) : null,
    forSteps: unit === "steps" ? amount : null,
    forSeconds: unit === "seconds" ? amount : null,
    enabled: true,
  };
}

/**
 * The approvers' rule form: "Add a rule", or with `rule` "Edit <name>" holding that rule's
 * settings (Save / Cancel). `onSave` gets the body; the caller creates or updates (keeping a
 * paused rule paused). Remount it (a `key`) to switch rules.
 */
export function AlertRuleForm({
  rule,
  onSave,
  onCancel,
}: {
  rule: AlertRuleView | null;
  onSave: (body: AlertRuleBody) => Promise<void>;
  onCancel: () => void;
}) {
  const editing = rule !== null;
  return (
    <Card>
      <CardHeader>
        <CardTitle>{editing ? `Edit ${rule.name}` : "Add a rule"}</CardTitle>
      </CardHeader>
      <CardContent>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            void onSave(bodyOf(form)).then(() => {
              if (!editing) form.reset();
            });
          }}
          className="flex flex-wrap items-end gap-3 text-sm"
          aria-label={editing ? "Edit the alert rule" : "Add an alert rule"}
        >
          <label className="grid gap-1">
            Name
            <Input name="name" required maxLength={200} defaultValue={rule?.name} />
          </label>
          <label className="grid gap-1">
            Kind of run
            <Select name="kind" defaultValue={rule?.kind ?? "training"}>
              {RUN_KIND_OPTIONS.map((k) => (
                <option key={k}>{k}</option>
              ))}
            </Select>
          </label>
          <label className="grid gap-1">
            Tag (optional)
            <Input name="tag" maxLength={100} defaultValue={rule?.tag ?? ""} />
          </label>
          <label className="grid gap-1">
            Metric
            <Input name="metricKey" required placeholder="loss" defaultValue={rule?.metricKey} />
          </label>
          <label className="grid gap-1">
            Condition
            <Select name="condition" defaultValue={rule?.condition ?? "nan"}>
              {ALERT_CONDITIONS.map((c) => (
                <option key={c} value={c}>
                  {c.replace("_", " ")}
                </option>
              ))}
            </Select>
          </label>
          <label className="grid gap-1">
            Threshold
            <Input
              name="threshold"
              inputMode="decimal"
              className="w-24"
              defaultValue={rule?.threshold ?? ""}
            />
          </label>
          <label className="grid gap-1">
            For
            <Input
              name="amount"
              type="number"
              min={1}
              required
              defaultValue={rule?.forSteps ?? rule?.forSeconds ?? 3}
              className="w-20"
            />
          </label>
          <label className="grid gap-1">
            Unit
            <Select name="unit" defaultValue={rule?.forSeconds != null ? "seconds" : "steps"}>
              <option value="steps">steps</option>
              <option value="seconds">seconds</option>
            </Select>
          </label>
          <Button type="submit">{editing ? "Save rule" : "Add rule"}</Button>
          {editing ? (
            <Button type="button" variant="outline" onClick={onCancel}>
              Cancel
            </Button>
          ) : null}
        </form>
      </CardContent>
    </Card>
  );
}
