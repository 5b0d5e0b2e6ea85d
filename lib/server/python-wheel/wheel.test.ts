import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, test } from "vitest";

import { findWheel, isWheelName } from "./wheel";

let root: string | null = null;
afterEach(async () => {
  if (root) await fs.rm(root, { recursive: true, force: true });
  root = null;
});

describe("findWheel", () => {
  test("null without a build folder; the highest version among pitwall wheels, ignoring other files", async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), "pitwall-wheel-"));
    expect(await findWheel(root)).toBeNull();
    const dir = path.join(root, "build", "python");
    await fs.mkdir(dir, { recursive: true });
    expect(await findWheel(root)).toBeNull();
    for (const f of [
      "pitwall-0.9.0-py3-none-any.whl",
      "pitwall-0.10.0-py3-none-any.whl",
      "other-1.0-py3-none-any.whl",
      "notes.txt",
    ])
      await fs.writeFile(path.join(dir, f), "x");
    expect(await findWheel(root)).toEqual({
      name: "pitwall-0.10.0-py3-none-any.whl",
      file: path.join(dir, "pitwall-0.10.0-py3-none-any.whl"),
    });
  });

  test("isWheelName accepts only pitwall wheel file names", () => {
    expect(isWheelName("pitwall-0.1.0-py3-none-any.whl")).toBe(true);
    expect(isWheelName("../pitwall-0.1.0-py3-none-any.whl")).toBe(false);
    expect(isWheelName("pitwall.whl")).toBe(false);
    expect(isWheelName("pitwall-0.1.0-cp311-cp311-linux_x86_64.whl")).toBe(false);
  });
});
