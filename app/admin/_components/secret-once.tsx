"use client";

import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";

/** A secret shown once (a generated password, a new token), with copy and dismiss. */
export function SecretOnce({
  label,
  secret,
  note,
  onDismiss,
}: {
  label: string;
  secret: string;
  note: string;
  onDismiss: () => void;
}) {
  return (
    <div
      role="status"
      className="space-y-1.5 rounded-md border border-succeeded/40 bg-succeeded-bg px-3 py-2 text-sm"
    >
      <p className="font-medium text-succeeded">{label}</p>
      <div className="flex items-center gap-2">
        <code
          className="min-w-0 flex-1 rounded bg-card px-2 py-1 font-mono text-xs break-all text-foreground select-all"
          data-testid="secret-once"
        >
          {secret}
        </code>
        <CopyButton text={secret} label={`Copy ${label.toLowerCase()}`} />
        <Button variant="ghost" size="sm" onClick={onDismiss}>
          Done
        </Button>
      </div>
      <p className="text-xs text-muted-fg">{note}</p>
    </div>
  );
}
