import { randomBytes } from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import { z } from "zod";

import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { isoTime, isoTimeOrNull } from "@/lib/iso-time";
import { describeIssues } from "@/lib/protocol";
import { ROLES, type Role } from "@/lib/roles";
import { passwordProblem } from "@/lib/server/auth/password-policy";
import { ConflictError, NotFoundError, ValidationError } from "@/lib/server/errors";
import { notifyArgs, userSessionsEndedTopic } from "@/lib/server/live/auth-events";
import type { AdminUserView } from "@/lib/view-models/admin";

import { accountKey, clearFailures } from "./sign-in-throttle";

/**
 * People who sign in. Accounts are written here (not through better-auth's sign-up endpoint,
 * which is off) in the shape better-auth reads: a User row plus a "credential" UserAccount whose
 * accountId is the user id and whose password is better-auth's scrypt hash.
 */

/** A person as lists show them (never the password hash). */
export interface UserRow {
  id: string;
  name: string;
  email: string;
  role: Role;
  disabledAt: Date | null;
  createdAt: Date;
  /** Last time one of their sessions was used or refreshed (better-auth refreshes daily); null: never signed in. */
  lastSeenAt: Date | null;
}

/** Input of {@link createUser}; `password` omitted → a random one is generated and returned. */
export const newUserInput = z.strictObject({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.email({ message: "not an email address" }))
    .pipe(z.string().max(200)),
  name: z.string().trim().min(1, "a name is required").max(100),
  role: z.enum(ROLES).default("viewer"),
  /** Checked against the password policy (lib/server/auth/password-policy.ts). */
  password: z
    .string()
    .superRefine((p, ctx) => {
      const problem = passwordProblem(p);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional(),
});
/** Raw input accepted by {@link createUser}. */
export type NewUser = z.input<typeof newUserInput>;

/** A created account; `password` is shown once (generated when none was given). */
export interface CreatedUser {
  user: UserRow;
  password: string;
  generated: boolean;
}

// One lock for every change that must see a consistent set of users: the first-admin setup and
// "never remove the last active admin". Transaction-scoped, so it is released on commit/rollback.
const USERS_LOCK = 0x70697477; // "pitw"

const userSelect = {
  id: true,
  name: true,
  email: true,
  role: true,
  disabledAt: true,
  createdAt: true,
} as const;

type Tx = Prisma.TransactionClient;

/** A readable random password: 16 characters of base64url (96 bits; passes the password policy). */
export function generatePassword(): string {
  return randomBytes(12).toString("base64url");
}

function parseNewUser(input: NewUser) {
  const parsed = newUserInput.safeParse(input);
  if (!parsed.success) throw new ValidationError(describeIssues(parsed.error));
  return parsed.data;
}

async function insertUser(
  tx: Tx,
  data: z.output<typeof newUserInput>,
  passwordHash: string,
): Promise<UserRow> {
  const id = randomBytes(16).toString("base64url");
  try {
    const user = await tx.user.create({
      data: { id, email: data.email, name: data.name, role: data.role },
      select: userSelect,
    });
    await tx.userAccount.create({
      data: {
        id: randomBytes(16).toString("base64url"),
        accountId: id,
        providerId: "credential",
        userId: id,
        password: passwordHash,
      },
    });
    return { ...user, lastSeenAt: null };
  } catch (err) {
    if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === "P2002")
      throw new ConflictError(`a user with email ${data.email} already exists`);
    throw err;
  }
}

/**
 * Creates a person who can sign in with email + password.
 * Usage (demo scripts, tests): `await createUser(db, { email: "demo@pitwall.local", name: "Demo", role: "approver", password: "pitwall-demo" })`.
 * @throws ValidationError (400) for a bad email/name/role/password; ConflictError (409) when the email is taken.
 */
export async function createUser(db: PrismaClient, input: NewUser): Promise<CreatedUser> {
  const data = parseNewUser(input);
  const password = data.password ?? generatePassword();
  const hash = await hashPassword(password);
  const user = await db.$transaction((tx) => insertUser(tx, data, hash));
  return { user, password, generated: data.password === undefined };
}

/**
 * Creates the first admin of a fresh install, only while there are no users at all. Race-safe:
 * concurrent calls serialise on a transaction lock and all but the first get a ConflictError.
 * @throws ValidationError (400); ConflictError (409) when any user exists.
 */
export async function createFirstAdmin(
  db: PrismaClient,
  input: Omit<NewUser, "role">,
): Promise<CreatedUser> {
  const data = parseNewUser({ ...input, role: "admin" });
  const password = data.password ?? generatePassword();
  const hash = await hashPassword(password);
  const user = await db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${USERS_LOCK})`;
    if ((await tx.user.count()) > 0)
      throw new ConflictError("setup is already done: sign in, or ask an admin for an account");
    return insertUser(tx, data, hash);
  });
  return { user, password, generated: data.password === undefined };
}

/** True once any account exists (the first-visit setup is then closed). */
export async function hasUsers(db: PrismaClient): Promise<boolean> {
  return (await db.user.findFirst({ select: { id: true } })) !== null;
}

/** Every person, admins first, then by name; with when they were last seen. */
export async function listUsers(db: PrismaClient): Promise<UserRow[]> {
  const rows = await db.user.findMany({
    select: {
      ...userSelect,
      sessions: { select: { updatedAt: true }, orderBy: { updatedAt: "desc" }, take: 1 },
    },
  });
  return rows
    .map(({ sessions, ...u }) => ({ ...u, lastSeenAt: sessions[0]?.updatedAt ?? null }))
    .sort(
      (a, b) =>
        ROLES.indexOf(b.role) - ROLES.indexOf(a.role) ||
        a.name.localeCompare(b.name) ||
        a.email.localeCompare(b.email),
    );
}

/** Finds a person by id or by email (case-insensitive). @throws NotFoundError. */
export async function findUser(db: PrismaClient | Tx, idOrEmail: string): Promise<UserRow> {
  const user = await db.user.findFirst({
    where: { OR: [{ id: idOrEmail }, { email: idOrEmail.trim().toLowerCase() }] },
    select: userSelect,
  });
  if (!user) throw new NotFoundError(`no user ${idOrEmail}`);
  return { ...user, lastSeenAt: null };
}

/** Changes to a person's account; undefined fields stay as they are. */
export interface UserChange {
  role?: Role;
  /** true: refuse sign-in and end every session now; false: allow sign-in again. */
  disabled?: boolean;
  /** A new password (e.g. after "I forgot mine"); their sessions end. */
  password?: string;
}

/**
 * Applies a role / disabled / password change to a person (by id or email) and returns them.
 * Disabling or a new password ends their sessions at once.
 * @throws NotFoundError; ValidationError for a password the policy refuses; ConflictError when the change
 *   would leave no active admin.
 */
export async function updateUser(
  db: PrismaClient,
  idOrEmail: string,
  change: UserChange,
): Promise<UserRow> {
  const problem = change.password === undefined ? null : passwordProblem(change.password);
  if (problem) throw new ValidationError(`password: ${problem}`);
  const hash = change.password !== undefined ? await hashPassword(change.password) : null;
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${USERS_LOCK})`;
    const user = await findUser(tx, idOrEmail);
    const losesAdmin =
      user.role === "admin" &&
      !user.disabledAt &&
      ((change.role !== undefined && change.role !== "admin") || change.disabled === true);
    if (losesAdmin) {
      const otherAdmins = await tx.user.count({
        where: { role: "admin", disabledAt: null, id: { not: user.id } },
      });
      if (otherAdmins === 0)
        throw new ConflictError(
          `${user.email} is the last active admin; make someone else admin first`,
        );
    }
    const disabledAt =
      change.disabled === undefined
        ? undefined
        : change.disabled
          ? (user.disabledAt ?? new Date())
          : null;
    const updated = await tx.user.update({
      where: { id: user.id },
      data: { role: change.role, disabledAt },
      select: userSelect,
    });
    if (hash !== null) {
      await tx.userAccount.updateMany({
        where: { userId: user.id, providerId: "credential" },
        data: { password: hash },
      });
      // A new password ends any sign-in back-off on the account: its guessers now guess a new one.
      await clearFailures(tx, accountKey(user.email));
    }
    if (change.disabled === true || hash !== null) {
      await tx.userSession.deleteMany({ where: { userId: user.id } });
      // Every app instance closes this person's live sockets at once (not at the next re-check).
      const [channel, payload] = notifyArgs(userSessionsEndedTopic(user.id));
      await tx.$executeRaw`SELECT pg_notify(${channel}, ${payload})`;
    }
    return { ...updated, lastSeenAt: null };
  });
}

/** A person as the admin page shows them (dates as ISO strings). */
export function toAdminUserView(u: UserRow): AdminUserView {
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    role: u.role,
    disabledAt: isoTimeOrNull(u.disabledAt),
    createdAt: isoTime(u.createdAt),
    lastSeenAt: isoTimeOrNull(u.lastSeenAt),
  };
}
