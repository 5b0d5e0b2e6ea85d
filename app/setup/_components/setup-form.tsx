"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";

import { Field } from "@/components/auth/field";
import { Button } from "@/components/ui/button";
import { setupRoute, type SetupResponse } from "@/lib/api/admin";
import { apiPath } from "@/lib/api/client";
import { postJson } from "@/lib/auth-client";

/** Creates the first admin (POST /api/setup), signs them in, then loads the overview. */
export function SetupForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get("email"));
    const password = String(form.get("password"));
    if (password !== String(form.get("confirm"))) {
      setError("The passwords differ.");
      return;
    }
    setPending(true);
    setError(null);
    const created = await postJson<SetupResponse>(apiPath(setupRoute), {
      name: String(form.get("name")),
      email,
      password,
    });
    if (!created.ok) {
      setPending(false);
      // 409: someone else finished the setup first; their sign-in page is the way on.
      if (created.status === 409) router.push("/sign-in");
      else setError(created.message ?? `Setup failed (${created.status}).`);
      return;
    }
    const signedIn = await postJson("/api/auth/sign-in/email", {
      email,
      password,
      rememberMe: true,
    });
    // A full load on purpose: the app bar (root layout) must render again with the new session.
    window.location.assign(signedIn.ok ? "/" : "/sign-in");
  }

  return (
    <form className="space-y-3" onSubmit={onSubmit}>
      <Field label="Your name" name="name" autoComplete="name" required maxLength={100} autoFocus />
      <Field
        label="Email"
        name="email"
        type="email"
        autoComplete="username"
        required
        maxLength={200}
      />
      <Field
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        maxLength={256}
        hint="At least 8 characters."
      />
      <Field
        label="Password again"
        name="confirm"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        maxLength={256}
      />
      {error ? (
        <p role="alert" className="rounded-md bg-failed-bg px-2.5 py-1.5 text-sm text-failed">
          {error}
        </p>
      ) : null}
      <Button type="submit" className="w-full" disabled={pending}>
        {pending ? "Creating…" : "Create admin account"}
      </Button>
    </form>
  );
}
