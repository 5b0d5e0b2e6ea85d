import type { RunDetail } from "@/lib/view-models";

import type { RunMetricsView } from "./metrics";
import type { RunProgressView } from "./pipeline";

/**
 * The value of a `run:<id>` shared-read topic on `/ws/live` (`snapshot.data`, patched by
 * `delta`s): exactly what the run page's three reads return, `GET /api/runs/:id`, `…/progress`
 * and `…/metrics` (default `maxPoints`), computed at one server time.
 */
export interface RunLiveView {
  run: RunDetail;
  progress: RunProgressView;
  metrics: RunMetricsView;
}
