import type { Metadata } from "next";
import { redirect } from "next/navigation";

import { AuthCard } from "@/components/auth/auth-card";
import { anyUsers } from "@/lib/server/auth/page";

import { SetupForm } from "./_components/setup-form";

/** Depends on the database and the request's cookies: never prerendered. */
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Set up" };

/** /setup: on a fresh install (no accounts yet) the first visitor creates the admin account; afterwards it sends people to /sign-in. */
export default async function SetupPage() {
  if (await anyUsers()) redirect("/sign-in");
  return (
    <AuthCard
      title="Welcome to Pitwall"
      description={
        <>
          Nobody has an account yet. Create the first one: it becomes the{" "}
          <strong className="font-medium text-foreground">admin</strong>, who then adds the team
          under Admin (or with <code className="font-mono text-xs">npx pitwall user create</code>).
        </>
      }
    >
      <SetupForm />
    </AuthCard>
  );
}
