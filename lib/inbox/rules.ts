import path from "node:path";
import picomatch from "picomatch";
import { z } from "zod";

export { ruleLabel } from "./rule-label";

/**
 * Inbox rules: allow/deny a tool permission as the agent's hook opens it, without asking anyone.
 * A rule matches an agent (or any), a project (or everywhere), a tool name (glob, case-insensitive,
 * so `Bash` also covers opencode's `bash`) and a glob on the tool call's subject: the Bash command,
 * the edited/read file path, the fetched URL (other tools: their input as JSON). Deny wins over
 * allow. Pure code (no database): the server evaluates it in lib/server/repositories/inbox-rules.ts.
 */

/** Agents a rule can name; "any" matches every agent. */
export const RULE_AGENTS = ["any", "claude-code", "opencode"] as const;

function patternError(pattern: string): string | null {
  try {
    picomatch.makeRe(pattern, { bash: true, dot: true });
    return null;
  } catch (err) {
    return `not a valid glob: ${(err as Error).message}`;
  }
}

/**
 * A rule as people write it (POST/PUT /api/inbox/rules). `project` null = everywhere; `tool` a
 * tool name or glob (`Bash`, `mcp__github__*`, `*`); `pattern` a glob on the command or path
 * (`pytest *`, `rm -rf *`, `src/**`); `message` (deny) is what the model reads.
 */
export const inboxRuleInput = z
  .strictObject({
    effect: z.enum(["allow", "deny"]),
    agent: z.enum(RULE_AGENTS).default("any"),
    project: z.string().trim().min(1).max(500).nullable().default(null),
    tool: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .regex(
        /^[A-Za-z0-9_.*?:-]+$/,
        "a tool name (Bash, Edit, mcp__server__tool) or a glob of one (mcp__github__*, *)",
      ),
    pattern: z.string().trim().min(1).max(2000),
    message: z
      .string()
      .max(2000)
      .nullish()
      .transform((m) => (m?.trim() ? m.trim() : null)),
  })
  .superRefine((r, ctx) => {
    const err = patternError(r.pattern);
    if (err) ctx.addIssue({ code: "custom", path: ["pattern"], message: err });
  });
/** A validated rule input. */
export type InboxRuleInput = z.infer<typeof inboxRuleInput>;

/** The parts of a stored rule the matcher needs. */
export interface RuleSpec {
  id: number;
  effect: "allow" | "deny";
  agent: string;
  project: string | null;
  tool: string;
  pattern: string;
}

/** What a rule is matched against: one permission request. */
export interface RuleTarget {
  agent: string;
  project: string | null;
  toolName: string | null;
  input: Record<string, unknown> | null;
  /** The agent's working folder: a path pattern also matches the path relative to it. */
  cwd: string | null;
}

/** The subject of a tool call that a rule's pattern is matched against. */
export interface RuleSubject {
  kind: "command" | "path" | "url" | "other";
  value: string;
}

const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null);

/** The command (Bash), the file path (Edit, Write, Read …), the URL (WebFetch) or else the input as JSON. */
export function ruleSubject(input: Record<string, unknown> | null): RuleSubject {
  const inp = input ?? {};
  const command = str(inp.command);
  if (command) return { kind: "command", value: command.trim() };
  const file = str(inp.file_path) ?? str(inp.filePath) ?? str(inp.notebook_path) ?? str(inp.path);
  if (file) return { kind: "path", value: file };
  const url = str(inp.url);
  if (url) return { kind: "url", value: url };
  return { kind: "other", value: JSON.stringify(inp) };
}

/** Shell constructs an allow rule never lets through: command substitution, redirection, process substitution. */
const UNSAFE_FOR_ALLOW = /\$\(|`|>|<\(/;

/**
 * The simple commands of a command line, split at `&&`, `||`, `;`, `|`, `&` and newlines. The split
 * ignores quoting on purpose: a quoted operator only makes more parts, which an allow rule must
 * all match (so it asks a person) and any of which a deny rule may match (so it denies) — both the
 * safe side.
 */
export function commandParts(command: string): string[] {
  return command
    .split(/&&|\|\||[;|&\n]/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

const cache = new Map<string, (s: string) => boolean>();
function glob(pattern: string, opts: { bash: boolean; nocase?: boolean }): (s: string) => boolean {
  const key = `${opts.bash ? "b" : "p"}${opts.nocase ? "i" : ""}:${pattern}`;
  let m = cache.get(key);
  if (!m) {
    try {
      const pm = picomatch(pattern, { bash: opts.bash, dot: true, nocase: opts.nocase });
      // One argument only: picomatch's second argument turns the answer into an object.
      m = (s) => pm(s);
    } catch {
      m = () => false;
    }
    if (cache.size > 2000) cache.clear();
    cache.set(key, m);
  }
  return m;
}

function pathMatches(pattern: string, file: string, cwd: string | null): boolean {
  const abs = path.posix.normalize(
    cwd && !file.startsWith("/") ? path.posix.join(cwd, file) : file,
  );
  const m = glob(pattern, { bash: false });
  if (m(abs)) return true;
  if (cwd) {
    const rel = path.posix.relative(cwd, abs);
    if (rel && !rel.startsWith("..") && !path.posix.isAbsolute(rel) && m(rel)) return true;
  }
  return false;
}

/** True when rule `rule` covers `target`'s agent, project and tool (not yet its pattern). */
export function ruleInScope(rule: RuleSpec, target: RuleTarget): boolean {
  if (rule.agent !== "any" && rule.agent !== target.agent) return false;
  if (rule.project !== null && rule.project !== target.project) return false;
  return target.toolName !== null && glob(rule.tool, { bash: true, nocase: true })(target.toolName);
}

/**
 * True when `rule` decides `target`. Commands: a deny rule matches the whole line or any of its
 * parts; an allow rule must match every part, and never allows a line with `$(…)`, backticks,
 * `<(…)` or a redirection `>`. Paths: the glob is matched against the absolute path and against
 * the path relative to the agent's folder (`src/**`), after normalising `..`.
 */
export function ruleMatches(rule: RuleSpec, target: RuleTarget): boolean {
  if (!ruleInScope(rule, target)) return false;
  const subject = ruleSubject(target.input);
  if (subject.kind === "path") return pathMatches(rule.pattern, subject.value, target.cwd);
  const m = glob(rule.pattern, { bash: true });
  if (subject.kind !== "command") return m(subject.value);
  const parts = commandParts(subject.value);
  if (rule.effect === "deny") return m(subject.value) || parts.some((p) => m(p));
  if (UNSAFE_FOR_ALLOW.test(subject.value)) return false;
  return parts.length > 0 && parts.every((p) => m(p));
}

/** The rule that decides `target`: the first (lowest id) matching deny rule, else the first matching allow rule; null = ask a person. */
export function decideByRules<R extends RuleSpec>(
  rules: readonly R[],
  target: RuleTarget,
): R | null {
  const sorted = [...rules].sort((a, b) => a.id - b.id);
  return (
    sorted.find((r) => r.effect === "deny" && ruleMatches(r, target)) ??
    sorted.find((r) => r.effect === "allow" && ruleMatches(r, target)) ??
    null
  );
}
