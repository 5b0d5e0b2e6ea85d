/** The line to show at session start when Pitwall refuses the token or does not answer; null when it accepts the token. */
export function startProblem(
  cfg: { url: string; token: string },
  postFrames: (
    cfg: { url: string; token: string },
    frames: unknown[],
    timeoutMs?: number,
  ) => Promise<unknown>,
  timeoutMs?: number,
): Promise<string | null>;
