"use client";

import { Monitor, Moon, Sun } from "lucide-react";
import { useMemo, useState } from "react";

import { useHydrated } from "@/components/live/use-now";
import { THEMES, timeZoneChoices, type Theme } from "@/lib/preferences";
import { cn } from "@/lib/utils";

import { usePreferences } from "./preferences-provider";

const THEME_ICON = { system: Monitor, light: Sun, dark: Moon } as const;
const THEME_LABEL: Record<Theme, string> = { system: "System", light: "Light", dark: "Dark" };

/** The user menu's display section: theme (system / light / dark) and the zone times are shown in, stored per person. */
export function DisplaySettings() {
  const { preferences, update } = usePreferences();
  const hydrated = useHydrated();
  const [error, setError] = useState<string | null>(null);
  const zones = useMemo(() => (hydrated ? timeZoneChoices() : []), [hydrated]);
  const browserZone = hydrated ? Intl.DateTimeFormat().resolvedOptions().timeZone : "";
  const save = (patch: Parameters<typeof update>[0]) => {
    setError(null);
    update(patch).catch((err: unknown) =>
      setError(err instanceof Error ? err.message : String(err)),
    );
  };
  return (
    <div className="grid gap-2 border-t border-border px-2 py-2">
      <div
        role="radiogroup"
        aria-label="Theme"
        className="grid grid-cols-3 gap-1"
        data-testid="theme-choice"
      >
        {THEMES.map((theme) => {
          const Icon = THEME_ICON[theme];
          const on = preferences.theme === theme;
          return (
            <button
              key={theme}
              type="button"
              role="radio"
              aria-checked={on}
              onClick={() => save({ theme })}
              className={cn(
                "flex items-center justify-center gap-1 rounded-sm border px-1.5 py-1 text-xs",
                on
                  ? "border-primary bg-muted font-medium text-foreground"
                  : "border-border text-muted-fg hover:bg-muted",
              )}
            >
              <Icon className="size-3.5" aria-hidden />
              {THEME_LABEL[theme]}
            </button>
          );
        })}
      </div>
      <label className="grid gap-1 text-xs text-muted-fg">
        Time zone
        <select
          className="h-7 rounded-sm border border-input bg-card px-1 text-xs text-foreground"
          value={preferences.timeZone ?? ""}
          onChange={(e) => save({ timeZone: e.target.value === "" ? null : e.target.value })}
          data-testid="time-zone-select"
        >
          <option value="">Browser{browserZone ? ` (${browserZone})` : ""}</option>
          {preferences.timeZone && !zones.includes(preferences.timeZone) ? (
            <option value={preferences.timeZone}>{preferences.timeZone}</option>
          ) : null}
          {zones.map((z) => (
            <option key={z} value={z}>
              {z}
            </option>
          ))}
        </select>
      </label>
      {error ? (
        <p role="alert" className="text-xs text-failed">
          {error}
        </p>
      ) : null}
    </div>
  );
}
