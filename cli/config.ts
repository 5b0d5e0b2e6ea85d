import { z } from "zod";

/** Settings of client commands (import, push), from the environment. */
const clientEnv = z.object({
  PITWALL_URL: z.string().url().default("http://localhost:8080"),
  PITWALL_TOKEN: z.string().min(1).optional(),
});

/** Client settings: server URL (default http://localhost:8080) and worker token. */
export type ClientConfig = z.infer<typeof clientEnv>;

/** Reads PITWALL_URL and PITWALL_TOKEN. @throws Error naming the invalid variable. */
export function readClientConfig(source: Record<string, string | undefined> = process.env): ClientConfig {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = clientEnv.safeParse(cleaned);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
  return parsed.data;
}
