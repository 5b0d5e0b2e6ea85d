import { describe, expect, test } from "vitest";

import { planOutlineMarkdown } from "./outline-markdown";

describe("planOutlineMarkdown", () => {
  test("the rationale, then the items numbered with their priority", () => {
    expect(
      planOutlineMarkdown("Uploads caught up.", [
        { content: "Resume at sample 610,000", priority: "high" },
        { content: "Alert  if disk\nfree drops" },
        { priority: "low" },
      ]),
    ).toBe("Uploads caught up.\n\n1. Resume at sample 610,000 (high)\n2. Alert if disk free drops");
  });

  test("null when there is nothing to show", () => {
    expect(planOutlineMarkdown(null, [])).toBeNull();
    expect(planOutlineMarkdown("  ", "not a list")).toBeNull();
    expect(planOutlineMarkdown(null, [{ content: "Only" }])).toBe("1. Only");
  });
});
