import { pool, prisma } from "@/lib/server/db";
import { logger } from "@/lib/server/logger";
import {
  getOverview,
  overviewPage,
  type OverviewPageOptions,
} from "@/lib/server/repositories/overview";
import type { OverviewView } from "@/lib/view-models/overview";

import { liveBus } from "./bus";
import { renoticeTopic } from "./publish";
import { SharedAnswers, type AgedAnswer } from "./shared-answers";

/**
 * The overview read model shared by the browsers that watch it (lib/server/live/shared-answers.ts):
 * a live refetch that accepts an answer up to {@link OVERVIEW_MAX_AGE_MS} old gets the one
 * computed for everybody; a `runs` renotice follows when such an answer lacked a change. Kept on
 * `globalThis`, so the API route and the server-rendered page (separate bundles) share one.
 */

/** The oldest overview answer (ms since its computation started) a live refetch is given. */
export const OVERVIEW_MAX_AGE_MS = 1_000;
/** A page whose served answer lacked a change is recomputed at most this often (ms). */
const REFRESH_GAP_MS = 500;
/** Pages of the overview remembered at most (a page is `offset:limit`). */
const MAX_PAGES = 32;
/** The topics whose changes the overview shows (the page listens to the same). */
const OVERVIEW_TOPICS = new Set(["runs", "hosts"]);

const g = globalThis as typeof globalThis & { __pitwallOverview?: SharedAnswers<OverviewView> };

function pageKey(page: Required<OverviewPageOptions>): string {
  return `${page.offset}:${page.limit}`;
}

function overviewAnswers(): SharedAnswers<OverviewView> {
  if (g.__pitwallOverview) return g.__pitwallOverview;
  const answers = new SharedAnswers<OverviewView>({
    compute: (key) => {
      const [offset, limit] = key.split(":").map(Number);
      return getOverview(prisma(), new Date(), { offset, limit });
    },
    maxAgeMs: OVERVIEW_MAX_AGE_MS,
    refreshGapMs: REFRESH_GAP_MS,
    renotice: () => {
      renoticeTopic(pool(), "runs").catch((err: unknown) =>
        logger.warn({ err }, "overview renotice failed; viewers catch up on their next refetch"),
      );
    },
    maxKeys: MAX_PAGES,
    onError: (err) => logger.warn({ err }, "overview refresh failed"),
    clock: {
      now: Date.now,
      setTimer: (fn, ms) => setTimeout(fn, ms).unref(),
      clearTimer: (h) => clearTimeout(h as NodeJS.Timeout),
    },
  });
  liveBus().on("topic", (topic: string, renotice?: boolean) => {
    if (!renotice && OVERVIEW_TOPICS.has(topic)) answers.changed();
  });
  g.__pitwallOverview = answers;
  return answers;
}

/**
 * One page of the overview (default the first OVERVIEW_PAGE.defaultLimit active runs),
 * computed after this call when `maxAgeMs` is 0 or absent, else possibly shared and up to
 * `maxAgeMs` (capped at {@link OVERVIEW_MAX_AGE_MS}) old. `ageMs`: how old the answer is.
 * @throws the database's errors.
 */
export function sharedOverview(
  page: OverviewPageOptions = {},
  maxAgeMs = 0,
): Promise<AgedAnswer<OverviewView>> {
  const key = pageKey(overviewPage(page));
  const answers = overviewAnswers();
  return maxAgeMs > 0 ? answers.shared(key, maxAgeMs) : answers.fresh(key);
}
