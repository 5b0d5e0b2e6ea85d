import { parseArgs } from "node:util";

/** Ack latency p99 (ms) the fleet must stay under: the steady target and a ramp stage's pass mark. */
export const TARGET_P99_MS = 250;
/** Pitwall's highest sustainable ramp rate must be at least this many times the anchor's. */
export const TARGET_RATIO = 1.5;
/** Share of the workers that restart (and re-send their last 50 steps) per minute. */
export const RESTART_SHARE_PER_MIN = 0.1;

/** The fleet scenario's size: workers, steady duration (s), ramp stage length (s), ramp rounds. */
export interface FleetOptions {
  workers: number;
  durationS: number;
  stageS: number;
  rounds: number;
}

/** Reads --workers, --duration, --stage and --rounds from the command line, defaults by quick or `full`. */
export function parseOptions(full: boolean): FleetOptions {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      workers: { type: "string" },
      duration: { type: "string" },
      stage: { type: "string" },
      rounds: { type: "string" },
    },
    strict: false,
    allowPositionals: true,
  });
  const num = (v: unknown, dflt: number) =>
    typeof v === "string" && Number(v) > 0 ? Number(v) : dflt;
  return {
    workers: num(values.workers, full ? 500 : 200),
    durationS: num(values.duration, full ? 300 : 60),
    stageS: num(values.stage, full ? 20 : 10),
    rounds: num(values.rounds, full ? 5 : 2),
  };
}
