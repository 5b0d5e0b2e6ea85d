"use client";

import { ChevronDown, LogOut, Settings } from "lucide-react";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";

import { DisplaySettings } from "@/components/preferences/display-settings";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { signOut } from "@/lib/auth-client";
import type { ViewerInfo } from "@/lib/roles";

/** The signed-in person in the app bar: name and role; the menu has the theme and time zone, Admin (admins) and Sign out. */
export function UserMenu({ viewer }: { viewer: ViewerInfo }) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);

  // Close on a click elsewhere or Escape: document listeners are outside React.
  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setOpen(false);
    };
    document.addEventListener("pointerdown", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  return (
    <div ref={root} className="relative">
      <Button
        variant="ghost"
        size="sm"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
        data-testid="user-menu"
      >
        {/* Narrow on a phone: a long name would push the bar past 390 px (the real-agent inbox test). */}
        <span className="max-w-40 truncate max-sm:max-w-14" title={viewer.name}>
          {viewer.name}
        </span>
        <Badge tone="outline" className="max-sm:hidden">
          {viewer.role}
        </Badge>
        <ChevronDown aria-hidden />
      </Button>
      {open ? (
        <div className="absolute top-full right-0 z-40 mt-1 w-64 rounded-md border border-border bg-card p-1 shadow-md">
          <div className="px-2 py-1.5 text-xs text-muted-fg">
            Signed in as{" "}
            <span className="font-medium text-foreground">{viewer.email ?? viewer.name}</span>
          </div>
          <DisplaySettings />
          <div role="menu" aria-label="Account" className="border-t border-border pt-1">
            {viewer.role === "admin" ? (
              <Link
                role="menuitem"
                href="/admin"
                className="flex items-center gap-2 rounded-sm px-2 py-1.5 text-sm hover:bg-muted"
                onClick={() => setOpen(false)}
              >
                <Settings className="size-4" aria-hidden />
                Admin
              </Link>
            ) : null}
            <button
              role="menuitem"
              type="button"
              className="flex w-full items-center gap-2 rounded-sm px-2 py-1.5 text-left text-sm hover:bg-muted"
              onClick={() => void signOut()}
            >
              <LogOut className="size-4" aria-hidden />
              Sign out
            </button>
          </div>
        </div>
      ) : null}
    </div>
  );
}
