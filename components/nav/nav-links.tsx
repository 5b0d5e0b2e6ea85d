"use client";

import { Menu, X } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState, type ComponentType } from "react";

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

function isActive(pathname: string, href: string): boolean {
  return pathname === href || (href !== "/" && pathname.startsWith(`${href}/`));
}

function Links({
  pathname,
  className,
  onNavigate,
}: {
  pathname: string;
  className?: string;
  onNavigate?: () => void;
}) {
  return LINKS.map((l) => {
    const active = isActive(pathname, l.href);
    return (
      <Link
        key={l.href}
        href={l.href}
        aria-current={active ? "page" : undefined}
        onClick={onNavigate}
        className={cn(
          "inline-flex items-center gap-1.5 rounded-md px-2.5 py-1 text-sm whitespace-nowrap text-muted-fg transition-colors hover:bg-muted hover:text-foreground",
          active && "bg-muted font-medium text-foreground",
          className,
        )}
      >
        {l.label}
        {l.Badge && <l.Badge />}
      </Link>
    );
  });
}

/**
 * Section links with the current one marked (aria-current). From 1100 px wide they sit in the app
 * bar; below that they collapse into a "Menu" button that opens them as a list under the bar
 * (closed again by choosing a link, the button, or Escape).
 */
export function NavLinks() {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const current = LINKS.find((l) => isActive(pathname, l.href));
  return (
    <>
      <nav aria-label="Main" className="hidden items-center gap-0.5 min-[1100px]:flex">
        <Links pathname={pathname} />
      </nav>
      <div className="min-[1100px]:hidden" onKeyDown={(e) => e.key === "Escape" && setOpen(false)}>
        <button
          type="button"
          aria-expanded={open}
          aria-controls="main-menu"
          onClick={() => setOpen((o) => !o)}
          data-testid="nav-menu"
          className="inline-flex h-8 items-center gap-1.5 rounded-md border border-border px-2.5 text-sm hover:bg-muted"
        >
          {open ? <X aria-hidden className="size-4" /> : <Menu aria-hidden className="size-4" />}
          <span>Menu</span>
          {current && (
            <span className="hidden text-muted-fg min-[420px]:inline">· {current.label}</span>
          )}
        </button>
        {open && (
          <nav
            id="main-menu"
            aria-label="Main"
            className="absolute inset-x-0 top-full z-40 grid grid-cols-2 gap-1 border-b border-border bg-card p-3 shadow-md sm:grid-cols-3"
          >
            <Links pathname={pathname} className="py-2" onNavigate={() => setOpen(false)} />
          </nav>
        )}
      </div>
    </>
  );
}
