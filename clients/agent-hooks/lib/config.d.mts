/** Types of config.mjs (plain JS so hooks run without a TypeScript loader). */
export interface HookConfig {
  /** The first server URL ("" when none). */
  url: string;
  /** Every server URL in order (several instances: failover). */
  urls: string[];
  token: string;
  stateDir: string;
  planTimeoutS: number;
  planFallback: "ask" | "deny";
  sendTimeoutMs: number;
  retryForS: number;
  sendPrompts: boolean;
  heartbeatS: number;
  /** Seconds a permission request waits for a decision in the inbox. */
  permissionTimeoutS: number;
  /** Milliseconds to open the inbox item before the terminal asks instead. */
  permissionSendTimeoutMs: number;
  /** Loopback port of the local forwarder (lib/forwarder.mjs). */
  forwarderPort: number;
  /** Folder of the forwarder's session registrations. */
  forwarderDir: string;
  /** Seconds the forwarder lingers with no request and no live agent. */
  forwarderIdleS: number;
  /** The forwarder's secret (<forwarderDir>/secret) the HTTP hooks send (header X-Pitwall-Forwarder-Secret); "" when none was installed. */
  forwarderSecret: string;
}
/** The forwarder's default loopback port. */
export const DEFAULT_FORWARDER_PORT: number;
/** A valid TCP port from `value`, else DEFAULT_FORWARDER_PORT. */
export function forwarderPort(value: unknown): number;
/** The local forwarder's folder: $PITWALL_FORWARDER_DIR, else ~/.cache/pitwall/forwarder-<port>. */
export function forwarderDirOf(
  env?: Record<string, string | undefined>,
  file?: Record<string, unknown>,
): string;
/** Default user-level config file. */
export function defaultConfigFile(env?: Record<string, string | undefined>): string;
/** Server URLs of PITWALL_URL / the config file's `url` (comma-separated or an array); bad entries dropped. */
export function parseUrls(value: unknown): string[];
/** The hooks' settings: environment first, then the user config file. Never throws. */
export function loadConfig(env?: Record<string, string | undefined>): HookConfig;
