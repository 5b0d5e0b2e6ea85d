"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";

import { RelativeTime } from "@/components/runs/relative-time";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { createTokenRoute, revokeTokenRoute, type CreateTokenResponse } from "@/lib/api/admin";
import { apiPath } from "@/lib/api/client";
import { postJson } from "@/lib/auth-client";
import type { AdminTokenView, CreatedTokenView } from "@/lib/view-models/admin";

import { SecretOnce } from "./secret-once";

/** Worker tokens: create one for a host (secret shown once), list, revoke. */
export function TokensCard({ tokens, origin }: { tokens: AdminTokenView[]; origin: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedTokenView | null>(null);
  const [pending, setPending] = useState(false);
  const active = tokens.filter((t) => !t.revokedAt).length;

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formEl = event.currentTarget;
    setPending(true);
    setError(null);
    const form = new FormData(formEl);
    const res = await postJson<CreateTokenResponse>(apiPath(createTokenRoute), {
      host: String(form.get("host")).trim(),
      shared: form.get("shared") === "on",
    });
    setPending(false);
    if (!res.ok) {
      setError(res.message ?? `Could not create the token (${res.status}).`);
      return;
    }
    formEl.reset();
    setCreated(res.body);
    router.refresh();
  }

  async function revoke(t: AdminTokenView) {
    if (
      !window.confirm(`Revoke token #${t.id} of ${t.host}? Workers using it can no longer connect.`)
    )
      return;
    setError(null);
    const res = await postJson(apiPath(revokeTokenRoute, { id: t.id }), {}, "DELETE");
    if (!res.ok) setError(res.message ?? `Could not revoke #${t.id} (${res.status}).`);
    router.refresh();
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Worker tokens</CardTitle>
        <CardDescription>
          {active} active of {tokens.length} · one per host; workers push with it and may read the
          API
        </CardDescription>
      </CardHeader>
      {tokens.length > 0 ? (
        <Table>
          <TableHeader>
            <TableRow>
              <TableHead>#</TableHead>
              <TableHead>Host</TableHead>
              <TableHead>Starts with</TableHead>
              <TableHead>Writes to</TableHead>
              <TableHead>State</TableHead>
              <TableHead>Created</TableHead>
              <TableHead className="text-right">Actions</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {tokens.map((t) => (
              <TableRow key={t.id} data-testid={`token-row-${t.id}`}>
                <TableCell className="text-muted-fg">{t.id}</TableCell>
                <TableCell className="font-medium">{t.host}</TableCell>
                <TableCell className="font-mono text-xs">{t.prefix}…</TableCell>
                <TableCell
                  className="text-muted-fg"
                  title={
                    t.shared
                      ? "Created shared: may also change runs, sessions and plans of other hosts"
                      : undefined
                  }
                >
                  {t.shared ? <Badge tone="neutral">any host (shared)</Badge> : "its host's runs"}
                </TableCell>
                <TableCell>
                  {t.revokedAt ? (
                    <Badge tone="neutral">
                      revoked <RelativeTime iso={t.revokedAt} />
                    </Badge>
                  ) : (
                    <Badge tone="succeeded">active</Badge>
                  )}
                </TableCell>
                <TableCell className="text-muted-fg">
                  <RelativeTime iso={t.createdAt} />
                </TableCell>
                <TableCell className="text-right">
                  {t.revokedAt ? null : (
                    <Button variant="outline" size="sm" onClick={() => void revoke(t)}>
                      Revoke
                    </Button>
                  )}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      ) : null}
      <CardContent className="space-y-3 border-t border-border">
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={create}
          aria-label="Create a worker token"
        >
          <label className="grid gap-1 text-xs font-medium">
            Host
            <Input
              name="host"
              required
              maxLength={100}
              pattern="[A-Za-z0-9][A-Za-z0-9._\-]*"
              placeholder="e.g. kpro5"
            />
          </label>
          <label className="flex h-9 items-center gap-2 text-sm">
            <input
              type="checkbox"
              name="shared"
              className="size-4 accent-current"
              aria-describedby="shared-token-hint"
            />
            Shared
          </label>
          <span id="shared-token-hint" className="flex h-9 items-center text-xs text-muted-fg">
            may also write to runs, sessions and plans other machines started (e.g. a benchmark
            client)
          </span>
          <Button type="submit" disabled={pending}>
            {pending ? "Creating…" : "Create token"}
          </Button>
        </form>
        {created ? (
          <SecretOnce
            label={`${created.shared ? "Shared token" : "Token"} for ${created.host}`}
            secret={created.token}
            note={`Shown once; stored hashed. On ${created.host}: export PITWALL_URL=${origin} PITWALL_TOKEN=<this token>`}
            onDismiss={() => setCreated(null)}
          />
        ) : null}
        {error ? (
          <p role="alert" className="rounded-md bg-failed-bg px-2.5 py-1.5 text-sm text-failed">
            {error}
          </p>
        ) : null}
      </CardContent>
    </Card>
  );
}
