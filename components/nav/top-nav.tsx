import Link from "next/link";
import { unstable_rethrow } from "next/navigation";

import { InboxCount } from "@/components/inbox/inbox-count";
import { GlobalSearch } from "@/components/search/global-search";
import { currentViewer } from "@/lib/server/auth/page";
import type { Viewer } from "@/lib/server/auth/viewer";
import { pool } from "@/lib/server/db";
import { inboxCount } from "@/lib/server/repositories/inbox-list";

import { LiveIndicator } from "./live-indicator";
import { NavLinks } from "./nav-links";
import { UserMenu } from "./user-menu";

/** The app bar: Pitwall wordmark, then for a signed-in viewer section links, live connection state and the user menu. */
export async function TopNav() {
  // The sign-in and setup pages have nobody; a failing lookup must not take the page down with it
  // (Next's own control-flow errors, e.g. "this render is dynamic", must pass through).
  let viewer: Viewer | null = null;
  try {
    viewer = await currentViewer();
  } catch (err) {
    unstable_rethrow(err);
  }
  // The inbox count is in the first paint; a failing count shows 0 rather than taking the page down.
  let waiting = 0;
  if (viewer) waiting = await inboxCount(pool()).catch(() => 0);
  return (
    <header
      data-app-bar
      className="sticky top-0 z-30 border-b border-border bg-card/95 backdrop-blur supports-[backdrop-filter]:bg-card/80"
    >
      <div className="mx-auto flex h-12 w-full max-w-[2200px] items-center gap-3 px-4 sm:gap-6 lg:px-6">
        <Link
          href="/"
          className="flex items-center gap-2 rounded-sm font-semibold tracking-tight"
          aria-label="Pitwall home"
        >
          <svg viewBox="0 0 20 20" aria-hidden className="size-5 text-primary">
            <rect x="1" y="1" width="18" height="18" rx="4" fill="currentColor" />
            <path
              d="M5 14V6h4.2a2.6 2.6 0 0 1 0 5.2H5"
              fill="none"
              stroke="var(--primary-fg)"
              strokeWidth="1.8"
              strokeLinecap="round"
              strokeLinejoin="round"
            />
            <path
              d="M12.5 14h3"
              stroke="var(--primary-fg)"
              strokeWidth="1.8"
              strokeLinecap="round"
            />
          </svg>
          <span className="text-[15px] max-sm:hidden">Pitwall</span>
        </Link>
        {/* Signed out (sign-in, setup): no links to pages that would send you back, and no live
            badges or socket that could only be refused. */}
        {viewer ? <NavLinks /> : null}
        <div className="ml-auto flex min-w-0 items-center gap-2 sm:gap-3">
          {viewer ? <GlobalSearch /> : null}
          {viewer ? <InboxCount initialCount={waiting} /> : null}
          {viewer ? <LiveIndicator /> : null}
          {viewer?.kind === "user" ? <UserMenu viewer={viewer} /> : null}
        </div>
      </div>
    </header>
  );
}
