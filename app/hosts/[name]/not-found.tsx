import Link from "next/link";

/** Unknown host name. */
export default function HostNotFound() {
  return (
    <div className="mx-auto mt-16 max-w-md rounded-lg border border-border bg-card p-6 text-center">
      <h1 className="text-base font-semibold">Host not found</h1>
      <p className="mt-1 text-sm text-muted-fg">
        No host has this name. Hosts appear when they get a worker token or run work.
      </p>
      <Link
        href="/hosts"
        className="mt-4 inline-block text-sm text-link underline-offset-4 hover:underline"
      >
        Back to all hosts
      </Link>
    </div>
  );
}
