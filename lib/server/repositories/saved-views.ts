import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { type SavedViewInput, type SavedViewPatch } from "@/lib/api/views";
import { isoTime } from "@/lib/iso-time";
import { ConflictError, NotFoundError } from "@/lib/server/errors";
import type { SavedViewView } from "@/lib/view-models";

/** Most saved views one person keeps per page. */
export const MAX_SAVED_VIEWS = 50;

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
