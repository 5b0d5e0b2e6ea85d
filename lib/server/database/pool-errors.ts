import type pg from "pg";

import type { Logger } from "@/lib/server/logger";

import { describeOutage } from "./outage";

/**
 * Handles the `error` events of a `pg` pool (emitted when an idle connection dies: a database
 * stopped, restarted or killed). Without a listener Node would throw them as uncaught
 * exceptions. Logged once per outage with context (`pool`, the driver's code and message, no
 * stack); the next successful connection logs that the pool is back, and re-arms the log.
 */
export function watchPoolErrors(pool: pg.Pool, name: string, log: Logger): void {
  let down = false;
  pool.on("error", (err) => {
    if (down) return;
    down = true;
    log.warn(
      { pool: name, err: describeOutage(err) },
      "database connection lost (idle pool connection); requests fail until it is back",
    );
  });
  pool.on("connect", () => {
    if (!down) return;
    down = false;
    log.info({ pool: name }, "database connection is back");
  });
}
