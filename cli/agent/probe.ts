/** How long the agent commands wait for Pitwall (a busy server's first answer can take seconds). */
export const PROBE_TIMEOUT_MS = 10_000;

/** What Pitwall says to a URL and token: `ok` (token accepted), `no_token`, `refused` (401), `http` (another status), `unreachable`. */
export interface ProbeResult {
  kind: "ok" | "no_token" | "refused" | "http" | "unreachable";
  /** One line for people: "http://… answers but refuses the token (401)". */
  line: string;
}

/**
 * Asks Pitwall at `url` whether it answers (`/healthz`) and accepts `token` (a worker-token
 * request that answers 401 for a wrong token and 404 otherwise). Never throws.
 */
export async function probePitwall(
  url: string,
  token: string,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<ProbeResult> {
  try {
    const health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!health.ok) return { kind: "http", line: `${url} answers HTTP ${health.status}` };
    if (!token) return { kind: "no_token", line: `${url} answers; no token configured` };
    const res = await fetch(
      `${url}/api/plans/${encodeURIComponent("pitwall-agent-status-probe")}/decision`,
      { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(timeoutMs) },
    );
    return res.status === 401
      ? { kind: "refused", line: `${url} answers but refuses the token (401)` }
      : { kind: "ok", line: `${url} answers and accepts the token` };
  } catch (err) {
    return { kind: "unreachable", line: `${url} does not answer (${(err as Error).message})` };
  }
}
