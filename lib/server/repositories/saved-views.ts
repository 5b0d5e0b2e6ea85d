import { z } from "zod";

import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { isoTime } from "@/lib/iso-time";
import { parseRunListQuery, runListSearch } from "@/lib/paths";
import { ConflictError, NotFoundError } from "@/lib/server/errors";
import type { SavedViewView } from "@/lib/view-models";

/** Most saved views one person keeps per page. */
export const MAX_SAVED_VIEWS = 50;

/** Run-list parameters a saved view may hold (the cursor is a position, not a view). */
const RUN_VIEW_PARAMS = new Set([
  "kind",
  "status",
  "host",
  "tag",
  "q",
  "archived",
  "sweep",
  "sort",
  "dir",
  "group",
  "cols",
]);

/**
 * A /runs query string ("kind=benchmark&sort=peak", a leading "?" allowed), checked and
 * normalised to the order and spelling `runsPath` writes; unknown parameters, a cursor or an
 * invalid value are issues naming the parameter.
 */
const runViewQuery = z
  .string()
  .max(2000)
  .transform((text, ctx) => {
    const sp = new URLSearchParams(text.startsWith("?") ? text.slice(1) : text);
    const unknown = [...new Set(sp.keys())].filter((k) => !RUN_VIEW_PARAMS.has(k));
    if (unknown.length > 0)
      ctx.addIssue({
        code: "custom",
        message: `query: unknown parameter${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}`,
      });
    const { query, ignored } = parseRunListQuery(Object.fromEntries(sp));
    if (ignored.length > 0)
      ctx.addIssue({ code: "custom", message: `query: invalid value of ${ignored.join(", ")}` });
    return runListSearch(query);
  });

const viewName = z.string().trim().min(1, "name cannot be blank").max(80);

/** Body of `POST /api/views`: `{name, query, page?}` (page "runs", the only list with views so far). */
export const savedViewInput = z.strictObject({
  page: z.enum(["runs"]).default("runs"),
  name: viewName,
  query: runViewQuery,
});
/** Parsed {@link savedViewInput}. */
export type SavedViewInput = z.infer<typeof savedViewInput>;

/** Body of `PATCH /api/views/:id`: a new name, a new query, or both. */
export const savedViewPatch = z
  .strictObject({ name: viewName.optional(), query: runViewQuery.optional() })
  .refine((p) => p.name !== undefined || p.query !== undefined, "send name, query or both");
/** Parsed {@link savedViewPatch}. */
export type SavedViewPatch = z.infer<typeof savedViewPatch>;

const select = {
  id: true,
  page: true,
  name: true,
  query: true,
  updatedAt: true,
} satisfies Prisma.SavedViewSelect;

function toView(r: Prisma.SavedViewGetPayload<{ select: typeof select }>): SavedViewView {
  return { id: r.id, page: r.page, name: r.name, query: r.query, updatedAt: isoTime(r.updatedAt) };
}

function nameConflict(err: unknown, name: string | undefined): never {
  if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002") {
    throw new ConflictError(`you already have a view named ${JSON.stringify(name)}`);
  }
  throw err;
}

/** The person's saved views of `page`, by name. */
export async function listSavedViews(
  db: PrismaClient,
  userId: string,
  page: string,
): Promise<SavedViewView[]> {
  const rows = await db.savedView.findMany({
    where: { userId, page },
    orderBy: [{ name: "asc" }, { id: "asc" }],
    select,
  });
  return rows.map(toView);
}

/**
 * Saves a view for the person.
 * @throws ConflictError when they already have a view of that name on the page, or {@link MAX_SAVED_VIEWS}.
 */
export async function createSavedView(
  db: PrismaClient,
  userId: string,
  input: SavedViewInput,
): Promise<SavedViewView> {
  const count = await db.savedView.count({ where: { userId, page: input.page } });
  if (count >= MAX_SAVED_VIEWS)
    throw new ConflictError(`at most ${MAX_SAVED_VIEWS} saved views per page; delete one first`);
  try {
    return toView(
      await db.savedView.create({
        data: { userId, page: input.page, name: input.name, query: input.query },
        select,
      }),
    );
  } catch (err) {
    nameConflict(err, input.name);
  }
}

/**
 * Renames a saved view or replaces its query.
 * @throws NotFoundError when the person has no view of this id (another person's view included);
 *   ConflictError when renamed onto another of their views.
 */
export async function updateSavedView(
  db: PrismaClient,
  userId: string,
  id: number,
  patch: SavedViewPatch,
): Promise<SavedViewView> {
  const owned = await db.savedView.findFirst({ where: { id, userId }, select: { id: true } });
  if (!owned) throw new NotFoundError(`saved view ${id} not found`);
  try {
    return toView(
      await db.savedView.update({
        where: { id },
        data: { name: patch.name, query: patch.query },
        select,
      }),
    );
  } catch (err) {
    nameConflict(err, patch.name);
  }
}

/**
 * Deletes one of the person's saved views.
 * @throws NotFoundError when the person has no view of this id (another person's view included).
 */
export async function deleteSavedView(db: PrismaClient, userId: string, id: number): Promise<void> {
  const { count } = await db.savedView.deleteMany({ where: { id, userId } });
  if (count === 0) throw new NotFoundError(`saved view ${id} not found`);
}
