import { telemetry } from "@/lib/server/telemetry";

/** Always evaluated per request (never prerendered at build time). */
export const dynamic = "force-dynamic";

/** GET /metrics → Prometheus text exposition (frames received/acked/rejected, live subscribers). */
export async function GET(): Promise<Response> {
  const { registry } = telemetry();
  return new Response(await registry.metrics(), {
    headers: { "content-type": registry.contentType },
  });
}
