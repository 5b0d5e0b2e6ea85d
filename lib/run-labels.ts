/**
 * Names that tell runs apart in one chart's legend: a run's own name, with " #<id>" added when
 * another run of the list has the same name (a repeated job, a restarted demo), as W&B adds the
 * run id. Pure; safe in client components.
 * @returns each run's label by id.
 */
export function distinctRunLabels(
  runs: ReadonlyArray<{ id: number; name: string }>,
): Map<number, string> {
  const count = new Map<string, number>();
  for (const r of runs) count.set(r.name, (count.get(r.name) ?? 0) + 1);
  return new Map(runs.map((r) => [r.id, count.get(r.name)! > 1 ? `${r.name} #${r.id}` : r.name]));
}
