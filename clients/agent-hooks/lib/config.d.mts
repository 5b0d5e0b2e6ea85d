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
}
/** Default user-level config file. */
export function defaultConfigFile(env?: Record<string, string | undefined>): string;
/** Server URLs of PITWALL_URL / the config file's `url` (comma-separated or an array); bad entries dropped. */
export function parseUrls(value: unknown): string[];
/** The hooks' settings: environment first, then the user config file. Never throws. */
export function loadConfig(env?: Record<string, string | undefined>): HookConfig;
