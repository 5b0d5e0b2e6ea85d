"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";

import { RelativeTime } from "@/components/runs/relative-time";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input, Select } from "@/components/ui/input";
import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@/components/ui/table";
import { createUserRoute, updateUserRoute, type CreateUserResponse } from "@/lib/api/admin";
import { apiPath } from "@/lib/api/client";
import { postJson } from "@/lib/auth-client";
import { isRole, ROLES, type Role } from "@/lib/roles";
import type { AdminUserView } from "@/lib/view-models/admin";

import { SecretOnce } from "./secret-once";

const ROLE_HELP: Record<Role, string> = {
  viewer: "reads everything",
  approver: "also decides plans",
  admin: "also manages people and tokens",
};

/** People: add one (password generated unless given), change a role, disable or enable. */
export function UsersCard({ users, selfId }: { users: AdminUserView[]; selfId: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ email: string; password: string } | null>(null);
  const [pending, setPending] = useState(false);

  async function change(user: AdminUserView, body: { role?: Role; disabled?: boolean }) {
    setError(null);
    const res = await postJson(apiPath(updateUserRoute, { id: user.id }), body, "PATCH");
    if (!res.ok) setError(res.message ?? `Could not change ${user.email} (${res.status}).`);
    router.refresh();
  }

  async function add(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formEl = event.currentTarget;
    const form = new FormData(formEl);
    setPending(true);
    setError(null);
    const res = await postJson<CreateUserResponse>(apiPath(createUserRoute), {
      name: String(form.get("name")),
      email: String(form.get("email")),
      role: String(form.get("role")),
      password: String(form.get("password") ?? ""),
    });
    setPending(false);
    if (!res.ok) {
      setError(res.message ?? `Could not add the person (${res.status}).`);
      return;
    }
    formEl.reset();
    setCreated(
      res.body.generatedPassword
        ? { email: res.body.user.email, password: res.body.generatedPassword }
        : null,
    );
    router.refresh();
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>People</CardTitle>
        <CardDescription>
          {users.length} account{users.length === 1 ? "" : "s"} · viewers read, approvers also
          decide plans, admins also manage people and tokens
        </CardDescription>
      </CardHeader>
      <Table>
        <TableHeader>
          <TableRow>
            <TableHead>Name</TableHead>
            <TableHead>Email</TableHead>
            <TableHead>Role</TableHead>
            <TableHead>State</TableHead>
            <TableHead>Last active</TableHead>
            <TableHead>Added</TableHead>
            <TableHead className="text-right">Actions</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {users.map((u) => (
            <TableRow key={u.id} data-testid={`user-row-${u.email}`}>
              <TableCell className="font-medium">
                {u.name}
                {u.id === selfId ? (
                  <span className="ml-1.5 text-xs text-muted-fg">(you)</span>
                ) : null}
              </TableCell>
              <TableCell>{u.email}</TableCell>
              <TableCell>
                <Select
                  aria-label={`Role of ${u.email}`}
                  value={u.role}
                  className="h-7 text-xs"
                  onChange={(e) => {
                    if (isRole(e.target.value)) void change(u, { role: e.target.value });
                  }}
                >
                  {ROLES.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </Select>
              </TableCell>
              <TableCell>
                {u.disabledAt ? (
                  <Badge tone="failed">disabled</Badge>
                ) : (
                  <Badge tone="succeeded">active</Badge>
                )}
              </TableCell>
              <TableCell className="text-muted-fg">
                {u.lastSeenAt ? <RelativeTime iso={u.lastSeenAt} /> : "never"}
              </TableCell>
              <TableCell className="text-muted-fg">
                <RelativeTime iso={u.createdAt} />
              </TableCell>
              <TableCell className="text-right">
                {u.id === selfId ? null : u.disabledAt ? (
                  <Button
                    variant="outline"
                    size="sm"
                    onClick={() => void change(u, { disabled: false })}
                  >
                    Enable
                  </Button>
                ) : (
                  <Button
                    variant="outline"
                    size="sm"
                    onClick={() => void change(u, { disabled: true })}
                  >
                    Disable
                  </Button>
                )}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <CardContent className="space-y-3 border-t border-border">
        <form className="flex flex-wrap items-end gap-2" onSubmit={add} aria-label="Add a person">
          <label className="grid gap-1 text-xs font-medium">
            Name
            <Input name="name" required maxLength={100} placeholder="e.g. Ada Lovelace" />
          </label>
          <label className="grid gap-1 text-xs font-medium">
            Email
            <Input
              name="email"
              type="email"
              required
              maxLength={200}
              placeholder="e.g. ada@example.com"
            />
          </label>
          <label className="grid gap-1 text-xs font-medium">
            Role
            <Select name="role" defaultValue="viewer">
              {ROLES.map((r) => (
                <option key={r} value={r} title={ROLE_HELP[r]}>
                  {r}
                </option>
              ))}
            </Select>
          </label>
          <label className="grid gap-1 text-xs font-medium">
            Password (optional)
            <Input
              name="password"
              type="password"
              autoComplete="new-password"
              minLength={8}
              maxLength={256}
              placeholder="generated when empty"
            />
          </label>
          <Button type="submit" disabled={pending}>
            {pending ? "Adding…" : "Add person"}
          </Button>
        </form>
        {created ? (
          <SecretOnce
            label={`Password for ${created.email}`}
            secret={created.password}
            note="Shown once. Pass it on privately; they sign in at /sign-in with their email and this password."
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
