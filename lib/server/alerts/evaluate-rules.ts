import type pg from "pg";

import {
  ruleHolds,
  type AlertConditionName,
  type RulePoint,
  type RuleSpec,
} from "@/lib/alerts/rule";
import { newestPoints } from "@/lib/server/metric-store";

/**
 * Evaluates the enabled alert rules (AlertRule) against the runs they watch, once per notifier
 * tick. A rule that starts to hold on a run opens an AlertFiring, records a `warn` RunEvent with
 * code `alert_rule_<id>` and adds that code to Run.activeAlerts (overview and run page show it);
 * when it stops holding (or the rule is disabled) the firing closes with an `info` event
 * `alert_rule_<id>_resolved` and the code leaves activeAlerts. Both transitions are claimed with
 * one conditional statement on AlertFiring, so each is announced once across instances; the
 * caller posts the returned transitions to the webhook.
 *
 * Watched runs: runs of the rule's kind (and tag) that are running, not archived and pushed in
 * the last 24 h, plus runs with an open firing of the rule (so it can resolve after the run ends).
 */

/** Code of a rule's alert on a run (RunEvent.code, Run.activeAlerts). */
export function alertRuleCode(ruleId: number): string {
  return `alert_rule_${ruleId}`;
}

/** A firing or resolution to announce. */
export interface RuleTransition {
  kind: "fired" | "resolved";
  ruleId: number;
  ruleName: string;
  runId: number;
  runName: string;
  host: string;
  detail: string;
}

interface RuleRow {
  id: number;
  name: string;
  kind: string;
  tag: string | null;
  metricKey: string;
  condition: AlertConditionName;
  threshold: number | null;
  forSteps: number | null;
  forSeconds: number | null;
  enabled: boolean;
}

interface WatchedRun {
  id: number;
  name: string;
  host: string;
  status: string;
  startedAt: Date;
  open: boolean;
}

/** Most points read per (rule, run) for a seconds-long window. */
const MAX_POINTS = 2000;

/** Runs one evaluation at `at`; returns what fired and what resolved. */
export async function evaluateAlertRules(pool: pg.Pool, at: Date): Promise<RuleTransition[]> {
  const rules = (
    await pool.query<RuleRow>(
      `SELECT id, name, kind::text AS kind, tag, "metricKey", condition::text AS condition, threshold, "forSteps", "forSeconds", enabled FROM "AlertRule"`,
    )
  ).rows;
  const out: RuleTransition[] = [];
  for (const rule of rules) {
    const runs = (
      await pool.query<WatchedRun>(
        `SELECT r.id, r.name, h.name AS host, r.status::text AS status, r."startedAt",
                EXISTS (SELECT 1 FROM "AlertFiring" f WHERE f."ruleId" = $1 AND f."runId" = r.id AND f."resolvedAt" IS NULL) AS open
           FROM "Run" r JOIN "Host" h ON h.id = r."hostId"
          WHERE ($5::boolean AND r.kind::text = $2 AND ($3::text IS NULL OR r.tags @> ARRAY[$3::text]) AND r.status = 'running'
                 AND r."archivedAt" IS NULL AND r."lastPushAt" > $4::timestamptz - interval '24 hours')
             OR r.id IN (SELECT "runId" FROM "AlertFiring" WHERE "ruleId" = $1 AND "resolvedAt" IS NULL)`,
        [rule.id, rule.kind, rule.tag, at, rule.enabled],
      )
    ).rows;
    for (const run of runs) {
      let holds = false;
      let detail = "rule disabled";
      if (rule.enabled && !(rule.condition === "no_data" && run.status !== "running")) {
        const points = await latestPoints(pool, run.id, rule);
        ({ holds, detail } = ruleHolds(
          rule as RuleSpec,
          points,
          at.getTime(),
          run.startedAt.getTime(),
        ));
      } else if (rule.enabled) {
        detail = "run ended";
      }
      if (holds && !run.open) {
        if (await fire(pool, rule, run.id, at, detail))
          out.push({
            kind: "fired",
            ruleId: rule.id,
            ruleName: rule.name,
            runId: run.id,
            runName: run.name,
            host: run.host,
            detail,
          });
      } else if (!holds && run.open) {
        if (await resolve(pool, rule, run.id, at, detail))
          out.push({
            kind: "resolved",
            ruleId: rule.id,
            ruleName: rule.name,
            runId: run.id,
            runName: run.name,
            host: run.host,
            detail,
          });
      }
    }
  }
  return out;
}

/** The metric's newest points (by step), enough for the rule's window. */
async function latestPoints(pool: pg.Pool, runId: number, rule: RuleRow): Promise<RulePoint[]> {
  const limit = rule.forSteps ?? MAX_POINTS;
  const rows = await newestPoints(
    pool,
    runId,
    rule.metricKey,
    rule.condition === "no_data" ? 1 : limit,
  );
  return rows.map((r) => ({ step: Number(r.step), value: r.value, tsMs: r.tsMs }));
}

/** Opens (or re-opens) the firing; false when another instance already did. */
async function fire(
  pool: pg.Pool,
  rule: RuleRow,
  runId: number,
  at: Date,
  detail: string,
): Promise<boolean> {
  const code = alertRuleCode(rule.id);
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const claimed = await client.query(
      `INSERT INTO "AlertFiring" ("ruleId", "runId", "firedAt", detail) VALUES ($1, $2, $3, $4)
       ON CONFLICT ("ruleId", "runId") DO UPDATE SET "firedAt" = EXCLUDED."firedAt", "resolvedAt" = NULL, detail = EXCLUDED.detail
        WHERE "AlertFiring"."resolvedAt" IS NOT NULL
       RETURNING 1`,
      [rule.id, runId, at, detail],
    );
    if (claimed.rowCount === 0) {
      await client.query("ROLLBACK");
      return false;
    }
    // notifiedAt set: the notifier's generic alert post must not announce it a second time.
    await client.query(
      `INSERT INTO "RunEvent" ("runId", level, message, code, ts, "notifiedAt") VALUES ($1, 'warn', $2, $3, $4, $4)`,
      [runId, `Alert “${rule.name}”: ${detail}`, code, at],
    );
    await client.query(
      `UPDATE "Run" SET "activeAlerts" = array_append(array_remove("activeAlerts", $2), $2) WHERE id = $1`,
      [runId, code],
    );
    await client.query("COMMIT");
    return true;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Closes the open firing; false when another instance already did. */
async function resolve(
  pool: pg.Pool,
  rule: RuleRow,
  runId: number,
  at: Date,
  detail: string,
): Promise<boolean> {
  const code = alertRuleCode(rule.id);
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const claimed = await client.query(
      `UPDATE "AlertFiring" SET "resolvedAt" = $3 WHERE "ruleId" = $1 AND "runId" = $2 AND "resolvedAt" IS NULL RETURNING 1`,
      [rule.id, runId, at],
    );
    if (claimed.rowCount === 0) {
      await client.query("ROLLBACK");
      return false;
    }
    await client.query(
      `INSERT INTO "RunEvent" ("runId", level, message, code, ts, "notifiedAt") VALUES ($1, 'info', $2, $3, $4, $4)`,
      [runId, `Alert “${rule.name}” resolved: ${detail}`, `${code}_resolved`, at],
    );
    await client.query(
      `UPDATE "Run" SET "activeAlerts" = array_remove("activeAlerts", $2) WHERE id = $1`,
      [runId, code],
    );
    await client.query("COMMIT");
    return true;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
