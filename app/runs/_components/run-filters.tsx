"use client";

import { Search } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useTransition } from "react";

import { Button, buttonVariants } from "@/components/ui/button";
import { Input, Select } from "@/components/ui/input";
import {
  hasRunFilters,
  RUN_KIND_OPTIONS,
  RUN_STATE_OPTIONS,
  runsPath,
  type RunListQuery,
} from "@/lib/paths";
import { cn } from "@/lib/utils";

/**
 * Filter bar of /runs. The URL is the state: selects apply at once, text fields on Enter or
 * "Apply"; the form is re-created when the URL changes so its fields always show the URL.
 */
export function RunFilters({ query, hosts }: { query: RunListQuery; hosts: readonly string[] }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();

  const apply = (form: HTMLFormElement) => {
    const fd = new FormData(form);
    const text = (name: string) => String(fd.get(name) ?? "").trim() || undefined;
    const next: RunListQuery = {
      q: text("q"),
      kind: text("kind") as RunListQuery["kind"],
      status: text("status") as RunListQuery["status"],
      host: text("host"),
      tag: text("tag"),
      archived: text("archived") as RunListQuery["archived"],
      // The order, grouping and group shown stay; paging restarts.
      sort: query.sort,
      dir: query.dir,
      group: query.group,
      sweep: query.sweep,
    };
    startTransition(() => router.push(runsPath(next)));
  };

  return (
    <form
      key={runsPath(query)}
      role="search"
      aria-label="Filter runs"
      aria-busy={pending}
      className="flex flex-wrap items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        apply(e.currentTarget);
      }}
    >
      <div className="relative">
        <Search
          aria-hidden
          className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-fg"
        />
        <Input
          name="q"
          type="search"
          defaultValue={query.q}
          placeholder="Search name, key or tag"
          aria-label="Search runs"
          className="w-64 pl-8"
        />
      </div>
      <Select
        name="kind"
        defaultValue={query.kind ?? ""}
        aria-label="Kind"
        onChange={(e) => e.currentTarget.form?.requestSubmit()}
      >
        <option value="">All kinds</option>
        {RUN_KIND_OPTIONS.map((k) => (
          <option key={k} value={k}>
            {k}
          </option>
        ))}
      </Select>
      <Select
        name="status"
        defaultValue={query.status ?? ""}
        aria-label="Status"
        onChange={(e) => e.currentTarget.form?.requestSubmit()}
      >
        <option value="">All statuses</option>
        {RUN_STATE_OPTIONS.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </Select>
      <Input
        name="host"
        defaultValue={query.host}
        placeholder="Host"
        aria-label="Host"
        list="run-filter-hosts"
        className="w-36"
      />
      <datalist id="run-filter-hosts">
        {hosts.map((h) => (
          <option key={h} value={h} />
        ))}
      </datalist>
      <Input
        name="tag"
        defaultValue={query.tag}
        placeholder="Tag"
        aria-label="Tag"
        className="w-36"
      />
      <Select
        name="archived"
        defaultValue={query.archived ?? ""}
        aria-label="Archived runs"
        onChange={(e) => e.currentTarget.form?.requestSubmit()}
      >
        <option value="">Hide archived</option>
        <option value="include">With archived</option>
        <option value="only">Archived only</option>
      </Select>
      <Button type="submit" variant="outline" disabled={pending}>
        Apply
      </Button>
      {hasRunFilters(query) && (
        <Link href="/runs" className={cn(buttonVariants({ variant: "ghost" }), "text-muted-fg")}>
          Clear filters
        </Link>
      )}
    </form>
  );
}
