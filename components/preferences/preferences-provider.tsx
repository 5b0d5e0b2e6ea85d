"use client";

import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";

import { useHydrated } from "@/components/live/use-now";
import { putPreferences } from "@/lib/api/fetchers/preferences";
import { DEFAULT_PREFERENCES, type Preferences, type PreferencesPatch } from "@/lib/preferences";

interface PreferencesState {
  preferences: Preferences;
  /** Whether a person is signed in (only they can store choices). */
  canSave: boolean;
  /** Applies `patch` at once (theme on <html>) and stores it; rejects with the server's message. */
  update: (patch: PreferencesPatch) => Promise<void>;
}

const PreferencesContext = createContext<PreferencesState>({
  preferences: DEFAULT_PREFERENCES,
  canSave: false,
  update: async () => {},
});

/** Sets the theme attribute the server rendered on <html>, so a change shows without a reload. */
function applyTheme(theme: Preferences["theme"]): void {
  document.documentElement.dataset.theme = theme;
}

/** Holds the signed-in person's display choices, seeded by the server render (no flash, no fetch). */
export function PreferencesProvider({
  initial,
  canSave,
  children,
}: {
  initial: Preferences;
  canSave: boolean;
  children: ReactNode;
}) {
  const [preferences, setPreferences] = useState(initial);
  const update = useCallback(async (patch: PreferencesPatch) => {
    if (patch.theme) applyTheme(patch.theme);
    setPreferences((p) => ({ ...p, ...patch }));
    setPreferences(await putPreferences(patch));
  }, []);
  const value = useMemo(() => ({ preferences, canSave, update }), [preferences, canSave, update]);
  return <PreferencesContext.Provider value={value}>{children}</PreferencesContext.Provider>;
}

/** The display choices and their setter. */
export function usePreferences(): PreferencesState {
  return useContext(PreferencesContext);
}

/**
 * The zone absolute times are shown in: the person's chosen zone (also in the server render), else
 * the browser's own zone once hydrated; undefined (= UTC) while hydrating without a choice.
 */
export function useTimeZone(): string | undefined {
  const hydrated = useHydrated();
  const chosen = useContext(PreferencesContext).preferences.timeZone;
  if (chosen) return chosen;
  return hydrated ? Intl.DateTimeFormat().resolvedOptions().timeZone : undefined;
}
