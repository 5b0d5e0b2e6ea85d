import { cn } from "@/lib/utils";

/** Splits a URI before its last path segment: `s3://b/run-7/` + `step-4000` (a trailing slash stays with the segment). */
export function splitUri(uri: string): { head: string; tail: string } {
  const trimmed = uri.endsWith("/") ? uri.slice(0, -1) : uri;
  const cut = trimmed.lastIndexOf("/");
  if (cut < 0 || cut === trimmed.length - 1) return { head: "", tail: uri };
  return { head: uri.slice(0, cut + 1), tail: uri.slice(cut + 1) };
}

/**
 * A checkpoint (or any object) URI in mono, its last segment (the part that differs between
 * checkpoints) emphasised. Where it does not fit, the head gives way first and is cut at its start
 * ("…run7/" + "checkpoint-024000/"), so the segments that tell two URIs apart stay readable; the
 * full URI is the tooltip.
 */
export function CheckpointUri({ uri, className }: { uri: string; className?: string }) {
  const { head, tail } = splitUri(uri);
  return (
    <span className={cn("flex min-w-0 font-mono text-xs", className)} title={uri}>
      {/* rtl puts the "…" at the start; the LRM keeps the trailing "/" on the right of the LTR text. */}
      <span className="min-w-0 shrink-[999] truncate text-left text-muted-fg [direction:rtl]">
        {head}
        {"\u200E"}
      </span>
      <span className="min-w-0 truncate font-medium text-foreground" data-uri-tail>
        {tail}
      </span>
    </span>
  );
}
