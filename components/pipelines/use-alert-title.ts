"use client";

import { useQuery } from "@tanstack/react-query";

import { fetchAlertRules } from "@/lib/api/fetchers/alerts";
import { alertRuleNamesQueryKey } from "@/lib/api/query-keys";

import { alertTitle } from "./alerts";

/** id → name of every alert rule (`GET /api/alert-rules`). @throws ApiError. */
export async function fetchAlertRuleNames(signal?: AbortSignal): Promise<Map<number, string>> {
  const rules = await fetchAlertRules(signal);
  return new Map(rules.map((r) => [r.id, r.name]));
}

/**
 * `alertTitle` with the rules' names: an alert of rule 3 reads `Alert “loss NaN”` once the names
 * are loaded (cached for a minute), "Alert rule #3" until then.
 */
export function useAlertTitle(): (code: string) => string {
  const { data } = useQuery({
    queryKey: alertRuleNamesQueryKey,
    queryFn: ({ signal }) => fetchAlertRuleNames(signal),
    staleTime: 60_000,
  });
  return (code) => alertTitle(code, data);
}
