import Link from "next/link";

/** Unknown run id. */
export default function RunNotFound() {
  return (
    <div className="mx-auto mt-16 max-w-md rounded-lg border border-border bg-card p-6 text-center">
      <h1 className="text-base font-semibold">Run not found</h1>
      <p className="mt-1 text-sm text-muted-fg">
        There is no run with this id. It may have been deleted, or the link is wrong.
      </p>
      <Link
        href="/runs"
        className="mt-4 inline-block text-sm text-link underline-offset-4 hover:underline"
      >
        Back to all runs
      </Link>
    </div>
  );
}
