/** Whether the hook event proves the session's waiting plan gate no longer holds the agent. */
export function gateIsStale(
  state:
    | { gatePid?: number; lastPlan: { key: string; decision: string | null } | null }
    | null
    | undefined,
  event: { hook_event_name: string },
): boolean;
/** SIGTERMs the gate process `pid` when it is still our hook; returns whether a signal was sent. */
export function stopGate(pid: number): boolean;
