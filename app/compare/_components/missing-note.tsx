/** The note naming requested run ids that were not found. */
export function MissingNote({ ids }: { ids: number[] }) {
  return (
    <p
      role="status"
      className="rounded-md border border-stale/40 bg-stale-bg px-3 py-2 text-sm text-stale"
    >
      Not found: run{ids.length > 1 ? "s" : ""} {ids.join(", ")}.
    </p>
  );
}
