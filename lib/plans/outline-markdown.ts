/**
 * The markdown an inbox item shows for a plan proposed without a body (`plan.propose` with items
 * only, as opencode's todo-style plans and the Python client send): its rationale, then its items
 * as a numbered list with their priority. Null when there is neither.
 * `items` is the stored JSON ([{content, priority?}]); entries without a string `content` are skipped.
 */
export function planOutlineMarkdown(rationale: string | null, items: unknown): string | null {
  const list = Array.isArray(items)
    ? items.flatMap((it: unknown) => {
        if (typeof it !== "object" || it === null) return [];
        const { content, priority } = it as { content?: unknown; priority?: unknown };
        if (typeof content !== "string" || content.trim() === "") return [];
        const flat = content.replace(/\s+/g, " ").trim();
        return [typeof priority === "string" ? `${flat} (${priority})` : flat];
      })
    : [];
  const parts: string[] = [];
  if (rationale?.trim()) parts.push(rationale.trim());
  if (list.length > 0) parts.push(list.map((line, i) => `${i + 1}. ${line}`).join("\n"));
  return parts.length > 0 ? parts.join("\n\n") : null;
}
