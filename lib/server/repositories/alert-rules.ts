import type { PrismaClient } from "@/generated/prisma/client";
import type { AlertRuleInput } from "@/lib/alerts/rule";
import { alertRuleCode } from "@/lib/server/alerts/evaluate-rules";
import { NotFoundError } from "@/lib/server/errors";
import type { AlertRuleView } from "@/lib/view-models/alerts";

const select = {
  id: true,
  name: true,
  kind: true,
  tag: true,
  metricKey: true,
  condition: true,
  threshold: true,
  forSteps: true,
  forSeconds: true,
  enabled: true,
  createdBy: true,
  updatedBy: true,
  updatedAt: true,
  firings: {
    where: { resolvedAt: null },
    select: { runId: true, firedAt: true, detail: true, run: { select: { name: true } } },
    orderBy: { firedAt: "desc" as const },
  },
} as const;

type Row = Awaited<ReturnType<PrismaClient["alertRule"]["findFirstOrThrow"]>> & {
  firings: Array<{ runId: number; firedAt: Date; detail: string; run: { name: string } }>;
};

function view(r: Row): AlertRuleView {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    tag: r.tag,
    metricKey: r.metricKey,
    condition: r.condition,
    threshold: r.threshold,
    forSteps: r.forSteps,
    forSeconds: r.forSeconds,
    enabled: r.enabled,
    createdBy: r.createdBy,
    updatedBy: r.updatedBy,
    updatedAt: r.updatedAt.toISOString(),
    firing: r.firings.map((f) => ({
      runId: f.runId,
      runName: f.run.name,
      firedAt: f.firedAt.toISOString(),
      detail: f.detail,
    })),
  };
}

/** Every rule, by name. */
export async function listAlertRules(db: PrismaClient): Promise<AlertRuleView[]> {
  return (await db.alertRule.findMany({ select, orderBy: [{ name: "asc" }, { id: "asc" }] })).map(
    (r) => view(r as Row),
  );
}

/** Creates a rule by `who` (an email). */
export async function createAlertRule(
  db: PrismaClient,
  input: AlertRuleInput,
  who: string,
): Promise<AlertRuleView> {
  const r = await db.alertRule.create({
    data: { ...normalize(input), createdBy: who, updatedBy: who },
    select,
  });
  return view(r as Row);
}

/** Replaces a rule's settings. @throws NotFoundError. */
export async function updateAlertRule(
  db: PrismaClient,
  id: number,
  input: AlertRuleInput,
  who: string,
): Promise<AlertRuleView> {
  const found = await db.alertRule.findUnique({ where: { id }, select: { id: true } });
  if (!found) throw new NotFoundError(`alert rule ${id} not found`);
  const r = await db.alertRule.update({
    where: { id },
    data: { ...normalize(input), updatedBy: who, updatedAt: new Date() },
    select,
  });
  return view(r as Row);
}

/** Deletes a rule and takes its code off the runs it was firing on. @throws NotFoundError. */
export async function deleteAlertRule(db: PrismaClient, id: number): Promise<void> {
  await db.$transaction(async (tx) => {
    const deleted = await tx.alertRule.deleteMany({ where: { id } });
    if (deleted.count === 0) throw new NotFoundError(`alert rule ${id} not found`);
    await tx.$executeRaw`UPDATE "Run" SET "activeAlerts" = array_remove("activeAlerts", ${alertRuleCode(id)}) WHERE ${alertRuleCode(id)} = ANY("activeAlerts")`;
  });
}

function normalize(input: AlertRuleInput) {
  return {
    name: input.name,
    kind: input.kind,
    tag: input.tag ?? null,
    metricKey: input.metricKey,
    condition: input.condition,
    threshold: input.threshold ?? null,
    forSteps: input.forSteps ?? null,
    forSeconds: input.forSeconds ?? null,
    enabled: input.enabled,
  };
}
