import { cn } from "@/lib/utils";

/** Splits a URI before its last path segment: `s3://b/run-7/` + `step-4000` (a trailing slash stays with the segment). */
export function splitUri(uri: string): { head: string; tail: string } {
  const trimmed = uri.endsWith("/") ? uri.slice(0, -1) : uri;
  const cut = trimmed.lastIndexOf("/");
  if (cut < 0 || cut === trimmed.length - 1) return { head: "", tail: uri };
  return { head: uri.slice(0, cut + 1), tail: uri.slice(cut + 1) };
}

/** A checkpoint URI in mono, its last segment (the part that differs between checkpoints) emphasised. */
export function CheckpointUri({ uri, className }: { uri: string; className?: string }) {
  const { head, tail } = splitUri(uri);
  return (
    <span className={cn("truncate font-mono text-xs", className)} title={uri}>
      <span className="text-muted-fg">{head}</span>
      <span className="font-medium text-foreground">{tail}</span>
    </span>
  );
}
