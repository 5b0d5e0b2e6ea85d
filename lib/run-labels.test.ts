import { describe, expect, test } from "vitest";

import { distinctRunLabels } from "./run-labels";

describe("legend labels of compared runs", () => {
  test("runs sharing a name get their id; a unique name stays as it is", () => {
    const labels = distinctRunLabels([
      { id: 7, name: "DFlash drafter run 7" },
      { id: 12, name: "DFlash drafter run 7" },
      { id: 9, name: "baseline" },
    ]);
    expect([...labels.values()]).toEqual([
      "DFlash drafter run 7 #7",
      "DFlash drafter run 7 #12",
      "baseline",
    ]);
  });
});
