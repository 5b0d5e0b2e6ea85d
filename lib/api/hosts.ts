import { z } from "zod";

import { timeRangeParams } from "@/lib/time-range";
import type { HostDetailView, HostListView } from "@/lib/view-models/hosts";
import type { ServingWindowView } from "@/lib/view-models/serving";

import { defineRoute } from "./contract";

/** Contracts of the host routes (`/api/hosts…`). */

/** Path parameters of `/api/hosts/:name…`. */
export const hostNameParams = z.object({ name: z.string().min(1).max(100) });

/** `GET /api/hosts` → every host by name with state, latest facts and the last hour. */
export const listHostsRoute = defineRoute({ route: "GET /api/hosts" });
/** Answer of {@link listHostsRoute}. */
export type ListHostsResponse = HostListView;

/** `GET /api/hosts/:name?range | from&to` → the host with per-GPU history over the window. */
export const getHostRoute = defineRoute({
  route: "GET /api/hosts/:name",
  params: hostNameParams,
  query: timeRangeParams,
});
/** Answer of {@link getHostRoute}. */
export type HostResponse = HostDetailView;

/** `GET /api/hosts/:name/serving?range | from&to` → the window of the host's serving runs. */
export const hostServingRoute = defineRoute({
  route: "GET /api/hosts/:name/serving",
  params: hostNameParams,
  query: timeRangeParams,
});
/** Answer of {@link hostServingRoute}. */
export type HostServingResponse = ServingWindowView;
