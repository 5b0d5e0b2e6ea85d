import { z } from "zod";

import { parseServerUrls } from "@/lib/client/server-urls";

/**
 * Settings of client commands (import, push, run…), from the environment. PITWALL_URL holds one
 * server URL or several instances sharing one PostgreSQL, comma-separated: the commands fail over
 * from one to the next.
 */
const clientEnv = z.object({
  PITWALL_URL: z.string().default("http://localhost:8080"),
  PITWALL_TOKEN: z.string().min(1).optional(),
});

/** Client settings: server URLs (`PITWALL_URL` as given, and parsed into `urls`) and worker token. */
export type ClientConfig = z.infer<typeof clientEnv> & {
  /** The server URLs in order (at least one), without trailing slashes. */
  urls: string[];
};

/** Reads PITWALL_URL (one URL or several, comma-separated) and PITWALL_TOKEN. @throws Error naming the invalid variable. */
export function readClientConfig(
  source: Record<string, string | undefined> = process.env,
): ClientConfig {
  const cleaned = Object.fromEntries(
    Object.entries(source).filter(([, v]) => v !== undefined && v !== ""),
  );
  const parsed = clientEnv.safeParse(cleaned);
  if (!parsed.success)
    throw new Error(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  try {
    return { ...parsed.data, urls: parseServerUrls(parsed.data.PITWALL_URL) };
  } catch (err) {
    throw new Error(`PITWALL_URL: ${(err as Error).message}`);
  }
}
