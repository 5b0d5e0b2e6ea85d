/**
 * Global search results (`GET /api/search?q=`): what the top bar's search box lists. Each group
 * holds at most its limit of hits, best first; `href` is the page to open.
 */

/** Which kind of thing a hit is. */
export type SearchHitKind = "run" | "session" | "plan" | "host" | "checkpoint";

/** One search hit: a title, one line of context (which field matched, kind, status …) and its page. */
export interface SearchHit {
  kind: SearchHitKind;
  /** Stable within its kind (run id, session id, plan id, host name, checkpoint URI). */
  id: string;
  title: string;
  /** One line of context; for a checkpoint its whole URI (the title is its last segment). */
  detail: string | null;
  href: string;
}

/** The response of `GET /api/search`: the trimmed query and the hits per kind. */
export interface SearchResults {
  q: string;
  runs: SearchHit[];
  sessions: SearchHit[];
  plans: SearchHit[];
  hosts: SearchHit[];
  checkpoints: SearchHit[];
}

/** Kinds in the order the search box lists their groups, with their group labels. */
export const SEARCH_GROUPS: ReadonlyArray<{
  key: Exclude<keyof SearchResults, "q">;
  label: string;
}> = [
  { key: "runs", label: "Runs" },
  { key: "sessions", label: "Sessions" },
  { key: "plans", label: "Plans" },
  { key: "hosts", label: "Hosts" },
  { key: "checkpoints", label: "Checkpoints" },
];
