/**
 * When a serving run (scraped by `pitwall scrape` every `intervalS` seconds) counts as silent: six
 * missed scrapes, at least two minutes, at most 7 days. The scraper sets it as the run's
 * `stallAfterS`, and the serving panel says "No recent scrape" from the same moment, so the run
 * header never reads "Running · Live" beside it (issue 25).
 */
export function servingStallAfterS(intervalS: number): number {
  return Math.min(7 * 86_400, Math.max(120, Math.ceil(intervalS * 6)));
}
