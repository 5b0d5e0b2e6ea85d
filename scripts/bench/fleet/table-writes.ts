import type pg from "pg";

import { fmt } from "../support";

/** Cumulative row writes of one table (pg_stat_user_tables counters). */
export interface TableWrites {
  ins: number;
  upd: number;
  hot: number;
  del: number;
}

/** Rows inserted, updated (and of those HOT) and deleted so far, per table of the database. */
export async function tableWrites(pool: pg.Pool): Promise<Map<string, TableWrites>> {
  const res = await pool.query<{ t: string; ins: string; upd: string; hot: string; del: string }>(
    `SELECT relname AS t, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot, n_tup_del AS del FROM pg_stat_user_tables`,
  );
  return new Map(
    res.rows.map((r) => [
      r.t,
      { ins: Number(r.ins), upd: Number(r.upd), hot: Number(r.hot), del: Number(r.del) },
    ]),
  );
}

/** The tables written between two readings, most written first: `table ins/upd(hot)/del` per 1,000 points. */
export function writesLine(
  before: Map<string, TableWrites>,
  after: Map<string, TableWrites>,
  points: number,
): string {
  const per = (n: number) => fmt((n * 1000) / Math.max(1, points), 0);
  const rows = [...after].map(([t, a]) => {
    const b = before.get(t) ?? { ins: 0, upd: 0, hot: 0, del: 0 };
    return { t, ins: a.ins - b.ins, upd: a.upd - b.upd, hot: a.hot - b.hot, del: a.del - b.del };
  });
  return rows
    .filter((r) => r.ins + r.upd + r.del > 0)
    .sort((x, y) => y.ins + y.upd + y.del - (x.ins + x.upd + x.del))
    .map((r) => `${r.t} ${per(r.ins)}/${per(r.upd)}(${per(r.hot)})/${per(r.del)}`)
    .join(", ");
}
