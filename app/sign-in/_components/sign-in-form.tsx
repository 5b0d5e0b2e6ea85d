"use client";

import { useState, type FormEvent } from "react";

import { Field } from "@/components/auth/field";
import { Button } from "@/components/ui/button";
import { postJson } from "@/lib/auth-client";

/** Email + password form; on success loads `next` (a full load, so the header shows who is signed in). */
export function SignInForm({ next }: { next: string }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    const res = await postJson("/api/auth/sign-in/email", {
      email: String(form.get("email")),
      password: String(form.get("password")),
      rememberMe: true,
    });
    if (res.ok) {
      // A full load on purpose: the app bar (root layout) must render again with the new session.
      window.location.assign(next);
      return;
    }
    setPending(false);
    setError(
      res.status === 401
        ? "Wrong email or password."
        : res.status === 429
          ? res.message
            ? `${res.message.charAt(0).toUpperCase()}${res.message.slice(1)}.`
            : "Too many failed attempts. Wait a few minutes, then try again."
          : (res.message ?? `Sign-in failed (${res.status}).`),
    );
  }

  return (
    <form className="space-y-3" onSubmit={onSubmit} noValidate={false}>
      <Field label="Email" name="email" type="email" autoComplete="username" required autoFocus />
      <Field
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
      />
      {error ? (
        <p role="alert" className="rounded-md bg-failed-bg px-2.5 py-1.5 text-sm text-failed">
          {error}
        </p>
      ) : null}
      <Button type="submit" className="w-full" disabled={pending}>
        {pending ? "Signing in…" : "Sign in"}
      </Button>
    </form>
  );
}
