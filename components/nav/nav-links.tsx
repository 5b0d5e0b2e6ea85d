"use client";

import type { ComponentType } from "react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { SESSION_NAV_ITEMS } from "@/components/sessions/nav-items";
import { cn } from "@/lib/utils";

const LINKS: ReadonlyArray<{ href: string; label: string; Badge?: ComponentType }> = [
  { href: "/", label: "Overview" },
  { href: "/runs", label: "Runs" },
  { href: "/hosts", label: "Hosts" },
  ...SESSION_NAV_ITEMS,
  { href: "/compare", label: "Compare" },
  { href: "/evals", label: "Evals" },
  { href: "/baselines", label: "Baselines" },
  { href: "/checkpoints", label: "Checkpoints" },
];

/** Section links with the current one marked (aria-current). */
export function NavLinks() {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="flex items-center gap-1">
      {LINKS.map((l) => {
        const active = pathname === l.href || (l.href !== "/" && pathname.startsWith(`${l.href}/`));
        return (
          <Link
            key={l.href}
            href={l.href}
            aria-current={active ? "page" : undefined}
            className={cn(
              "inline-flex items-center gap-1.5 rounded-md px-2.5 py-1 text-sm text-muted-fg transition-colors hover:bg-muted hover:text-foreground",
              active && "bg-muted font-medium text-foreground",
            )}
          >
            {l.label}
            {l.Badge && <l.Badge />}
          </Link>
        );
      })}
    </nav>
  );
}
