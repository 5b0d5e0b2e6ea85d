"use client";

import { Check, Copy } from "lucide-react";
import { useState } from "react";

import { Button } from "./button";

/** Copies `text` to the clipboard; shows a check for 1.5 s after copying. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      variant="ghost"
      size="icon"
      aria-label={copied ? "Copied" : label}
      title={copied ? "Copied" : label}
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => {
          setCopied(true);
          window.setTimeout(() => setCopied(false), 1500);
        });
      }}
    >
      {copied ? <Check className="text-succeeded" /> : <Copy />}
    </Button>
  );
}
