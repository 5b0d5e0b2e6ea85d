import { describe, expect, test } from "vitest";

import { uploadInvariant } from "./invariants";

describe("uploadInvariant", () => {
  test("holds while deletes trail uploads", () => {
    expect(
      uploadInvariant({ "s3.uploaded": 1000, "local.deleted": 990, "s3.inflight": 100 }),
    ).toBeNull();
    expect(uploadInvariant({ "s3.uploaded": 1000, "local.deleted": 1000 })).toBeNull();
    expect(uploadInvariant({ "s3.uploaded": 0, "local.deleted": 0 })).toBeNull();
  });

  test("raises when more files were deleted locally than uploaded", () => {
    expect(uploadInvariant({ "s3.uploaded": 913_980, "local.deleted": 914_000 })).toEqual({
      code: "deleted_before_upload",
      message:
        "20 files deleted locally but never uploaded (local.deleted 914,000 > s3.uploaded 913,980)",
      deleted: 914_000,
      uploaded: 913_980,
    });
  });

  test("one file is singular", () => {
    expect(uploadInvariant({ "s3.uploaded": 4, "local.deleted": 5 })?.message).toBe(
      "1 file deleted locally but never uploaded (local.deleted 5 > s3.uploaded 4)",
    );
  });

  test("nothing to say when either counter is absent or not finite", () => {
    expect(uploadInvariant({})).toBeNull();
    expect(uploadInvariant({ "local.deleted": 5 })).toBeNull();
    expect(uploadInvariant({ "s3.uploaded": 5 })).toBeNull();
    expect(uploadInvariant({ "s3.uploaded": Number.NaN, "local.deleted": 5 })).toBeNull();
  });
});
