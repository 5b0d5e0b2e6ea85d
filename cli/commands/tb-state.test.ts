import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

import { defaultTbStatePath, loadTbState, saveTbState } from "./tb-state";

describe("the watch tensorboard state file", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pitwall-tb-state-unit-"));
  const offsets = {
    files: { "/logs/a/events.out.tfevents.1": { offset: 1234, plugins: { loss: "scalars" } } },
    runs: ["tb:abc"],
  };

  it("round-trips the read positions of its log directory", () => {
    const file = path.join(dir, "deep", "s.json");
    saveTbState(file, "/logs", offsets);
    expect(loadTbState(file, "/logs", () => undefined)).toEqual(offsets);
  });

  it("ignores, with a warning, a state of another log directory, a broken file, and says nothing when there is none", () => {
    const file = path.join(dir, "s2.json");
    saveTbState(file, "/logs", offsets);
    const warnings: string[] = [];
    expect(loadTbState(file, "/other", (m) => warnings.push(m))).toBeNull();
    fs.writeFileSync(
      file,
      '{"v":1,"logdir":"/logs","files":{"x":{"offset":-1,"plugins":{}}},"runs":[]}',
    );
    expect(loadTbState(file, "/logs", (m) => warnings.push(m))).toBeNull();
    fs.writeFileSync(file, "{not json");
    expect(loadTbState(file, "/logs", (m) => warnings.push(m))).toBeNull();
    expect(loadTbState(path.join(dir, "none.json"), "/logs", (m) => warnings.push(m))).toBeNull();
    expect(warnings).toHaveLength(3);
  });

  it("keeps one default file per log directory under XDG_STATE_HOME", () => {
    const a = defaultTbStatePath("/logs/a", { XDG_STATE_HOME: "/state" });
    expect(a).toMatch(/^\/state\/pitwall\/tensorboard\/[0-9a-f]{24}\.json$/);
    expect(defaultTbStatePath("/logs/b", { XDG_STATE_HOME: "/state" })).not.toBe(a);
  });
});
