import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";

import { AuthCard } from "@/components/auth/auth-card";
import { safeNextPath } from "@/lib/roles";
import { anyUsers, currentViewer } from "@/lib/server/auth/page";

import { SignInForm } from "./_components/sign-in-form";

/** Depends on the database and the request's cookies: never prerendered. */
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Sign in" };

/** /sign-in?next=/runs/42: email + password (also to switch accounts); a fresh install (no users yet) goes to /setup instead. */
export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const raw = (await searchParams).next;
  const next = safeNextPath(typeof raw === "string" ? raw : null);
  if (!(await anyUsers())) redirect("/setup");
  // Signed in already: still offer the form (to switch accounts), and the way back.
  const viewer = await currentViewer();
  return (
    <AuthCard
      title="Sign in to Pitwall"
      description={
        viewer?.kind === "user" ? (
          <>
            You are signed in as {viewer.name}.{" "}
            <Link href={next} className="text-link underline-offset-4 hover:underline">
              Continue
            </Link>{" "}
            or sign in as someone else.
          </>
        ) : (
          "Use the email and password your Pitwall admin gave you."
        )
      }
    >
      <SignInForm next={next} />
    </AuthCard>
  );
}
