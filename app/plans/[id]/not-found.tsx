import Link from "next/link";

/** Unknown plan id. */
export default function PlanNotFound() {
  return (
    <div className="mx-auto mt-16 max-w-md rounded-lg border border-border bg-card p-6 text-center">
      <h1 className="text-base font-semibold">Plan not found</h1>
      <p className="mt-1 text-sm text-muted-fg">
        There is no plan with this id. The link may be wrong.
      </p>
      <Link
        href="/plans"
        className="mt-4 inline-block text-sm text-link underline-offset-4 hover:underline"
      >
        Back to all plans
      </Link>
    </div>
  );
}
