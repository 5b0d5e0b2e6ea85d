import Link from "next/link";
import { Fragment, type ReactNode } from "react";

import { checkpointPath, checkpointUriOfConfig } from "@/lib/checkpoint-paths";
import { formatConfigValue } from "@/lib/format";
import { configEntries } from "@/lib/run-config";
import { cn } from "@/lib/utils";

/** A config value: arrays of strings (flags, varying facts) as chips, long text wrapped, the rest plain. */
export function ConfigValue({ value }: { value: unknown }) {
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((v) => typeof v === "string" || typeof v === "number")
  ) {
    return (
      <span className="flex flex-wrap gap-1">
        {value.map((v, i) => (
          <code key={i} className="rounded bg-muted px-1 py-px font-mono text-xs break-all">
            {String(v)}
          </code>
        ))}
      </span>
    );
  }
  const text = formatConfigValue(value);
  return (
    <span
      className={cn(
        "break-words",
        typeof value === "string" && text.startsWith("--") && "font-mono text-xs",
      )}
      title={text.length > 24 ? text : undefined}
    >
      {withBreaks(text)}
    </span>
  );
}

/** `text` with a line-break opportunity after each "/", "." and "_" and inside camelCase ("memFraction|Static"), so a narrow column wraps a path at a separator, not mid-word ("pitwall.p / y"). */
function withBreaks(text: string): ReactNode {
  const parts = text.split(/(?<=[/._])|(?<=[a-z])(?=[A-Z])/);
  if (parts.length === 1) return text;
  return parts.map((part, i) => (
    <Fragment key={i}>
      {part}
      {i < parts.length - 1 && <wbr />}
    </Fragment>
  ));
}

/** A config value; the `checkpoint` URI links to the checkpoint's lineage page. */
function CheckpointValue({ entryKey, value }: { entryKey: string; value: unknown }) {
  const uri = checkpointUriOfConfig(entryKey, value);
  if (uri === null) return <ConfigValue value={value} />;
  return (
    <Link
      href={checkpointPath(uri)}
      className="rounded-sm font-mono text-xs break-all text-link hover:underline"
      title="Who produced, scored and served this checkpoint"
    >
      {uri}
    </Link>
  );
}

/** The run's configuration as a dense key/value list, known keys (model, engine, parallelism, speculative, flags, dataset, lengths) first. */
export function ConfigPanel({
  config,
  className,
}: {
  config: Record<string, unknown>;
  className?: string;
}) {
  const entries = configEntries(config);
  if (entries.length === 0)
    return (
      <p className={cn("text-sm text-muted-fg", className)}>
        No configuration was reported for this run.
      </p>
    );
  return (
    <dl
      className={cn(
        "grid grid-cols-[minmax(6rem,11rem)_minmax(0,1fr)] gap-x-4 gap-y-1.5 text-[13px]",
        className,
      )}
    >
      {entries.map((e) => (
        <div key={e.key} className="contents">
          <dt
            className={cn(
              "break-words text-muted-fg",
              e.label === e.key && "font-mono text-xs leading-5",
            )}
            title={e.key}
          >
            {withBreaks(e.label)}
          </dt>
          <dd className="min-w-0 tabular-nums">
            <CheckpointValue entryKey={e.key} value={e.value} />
          </dd>
        </div>
      ))}
    </dl>
  );
}
