"use client";

import { useState } from "react";

import { Button } from "@/components/ui/button";

/** One question of Claude Code's AskUserQuestion input. */
interface AskedQuestion {
  question: string;
  header: string | null;
  multiSelect: boolean;
  options: Array<{ label: string; description: string | null }>;
}

/** The questions of an AskUserQuestion input (unknown shapes dropped). */
export function askedQuestions(input: Record<string, unknown> | null): AskedQuestion[] {
  const raw = Array.isArray(input?.questions) ? (input.questions as unknown[]) : [];
  return raw.flatMap((q) => {
    const o = (q ?? {}) as Record<string, unknown>;
    if (typeof o.question !== "string") return [];
    const options = (Array.isArray(o.options) ? (o.options as unknown[]) : []).flatMap((x) => {
      const opt = (x ?? {}) as Record<string, unknown>;
      return typeof opt.label === "string"
        ? [
            {
              label: opt.label,
              description: typeof opt.description === "string" ? opt.description : null,
            },
          ]
        : [];
    });
    return [
      {
        question: o.question,
        header: typeof o.header === "string" ? o.header : null,
        multiSelect: o.multiSelect === true,
        options,
      },
    ];
  });
}

/**
 * An AskUserQuestion item's questions with their options (radio, or checkboxes when several may
 * be chosen) and an "Other" free-text answer; sends `{question text: answer}` (several chosen
 * labels joined with ", ", as Claude Code's own dialog does).
 */
export function QuestionAnswer({
  itemId,
  input,
  onAnswer,
}: {
  itemId: string;
  input: Record<string, unknown> | null;
  onAnswer: (answers: Record<string, string>) => void;
}) {
  const questions = askedQuestions(input);
  const [chosen, setChosen] = useState<Record<string, string[]>>({});
  const [other, setOther] = useState<Record<string, string>>({});
  const answerOf = (q: AskedQuestion) =>
    other[q.question]?.trim() || (chosen[q.question] ?? []).join(", ");
  const complete = questions.length > 0 && questions.every((q) => answerOf(q));
  return (
    <form
      className="mt-3 grid gap-3"
      aria-label="Answer the question"
      onSubmit={(e) => {
        e.preventDefault();
        if (complete) onAnswer(Object.fromEntries(questions.map((q) => [q.question, answerOf(q)])));
      }}
    >
      {questions.map((q, qi) => (
        <fieldset key={q.question} className="grid min-w-0 gap-1">
          <legend className="mb-1 text-sm font-medium break-words">
            {q.header && (
              <span className="mr-2 rounded bg-muted px-1.5 py-0.5 text-xs">{q.header}</span>
            )}
            {q.question}
          </legend>
          {q.options.map((opt) => (
            <label
              key={opt.label}
              className="flex min-h-11 cursor-pointer items-center gap-2 rounded-md border border-border px-2 text-sm"
            >
              <input
                type={q.multiSelect ? "checkbox" : "radio"}
                name={`q-${itemId}-${qi}`}
                className="size-5 shrink-0"
                checked={(chosen[q.question] ?? []).includes(opt.label)}
                onChange={(e) =>
                  setChosen((c) => {
                    const was = c[q.question] ?? [];
                    const next = q.multiSelect
                      ? e.target.checked
                        ? [...was, opt.label]
                        : was.filter((l) => l !== opt.label)
                      : [opt.label];
                    return { ...c, [q.question]: next };
                  })
                }
              />
              <span className="min-w-0 break-words">
                <span className="font-medium">{opt.label}</span>
                {opt.description && <span className="text-muted-fg"> — {opt.description}</span>}
              </span>
            </label>
          ))}
          <label className="grid gap-1 text-xs font-medium">
            Other (your own answer)
            <input
              className="min-h-11 w-full rounded-md border border-input bg-background px-2 text-sm"
              value={other[q.question] ?? ""}
              onChange={(e) => setOther((o) => ({ ...o, [q.question]: e.target.value }))}
            />
          </label>
        </fieldset>
      ))}
      <div>
        <Button type="submit" className="min-h-11 min-w-11" disabled={!complete}>
          Send answer
        </Button>
      </div>
    </form>
  );
}
