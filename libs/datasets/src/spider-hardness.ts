import type { SpiderHardness } from './types';

/**
 * Spider's hardness, ported from `eval_hardness` in the official evaluation.py (and test-suite-sql-eval), applied
 * to the parsed SQL structure Spider ships in dev.json's `sql` field. The quirks are kept on purpose: `has_agg`
 * looks at element 0 of whatever it is given, so a NOT in WHERE counts as an aggregate, and every 'and'/'or'
 * string in HAVING counts as one too.
 */
type Unit = unknown[] | string;

interface SpiderSql {
  select: [boolean, Unit[]];
  from: { table_units: unknown[]; conds: Unit[] };
  where: Unit[];
  groupBy: Unit[];
  having: Unit[];
  orderBy: [] | [string, Array<[number, unknown[] | null, unknown[] | null]>];
  limit: number | null;
  intersect: SpiderSql | null;
  union: SpiderSql | null;
  except: SpiderSql | null;
}

const isSql = (v: unknown): v is SpiderSql => typeof v === 'object' && v !== null && !Array.isArray(v);
const everyOther = <T>(xs: T[], start: number): T[] => xs.filter((_, i) => i % 2 === start);

/** Python truthiness of `unit[0] != 0` for the unit shapes Spider produces. */
function hasAgg(unit: Unit): boolean {
  const first = unit[0];
  if (typeof first === 'string') return true;
  return Number(first) !== 0;
}
const countAgg = (units: Unit[]): number => units.filter(hasAgg).length;

function nestedSql(sql: SpiderSql): SpiderSql[] {
  const nested: SpiderSql[] = [];
  const conds = [...everyOther(sql.from.conds, 0), ...everyOther(sql.where, 0), ...everyOther(sql.having, 0)];
  for (const cond of conds) {
    if (Array.isArray(cond)) {
      if (isSql(cond[3])) nested.push(cond[3]);
      if (isSql(cond[4])) nested.push(cond[4]);
    }
  }
  if (sql.intersect) nested.push(sql.intersect);
  if (sql.except) nested.push(sql.except);
  if (sql.union) nested.push(sql.union);
  return nested;
}

const LIKE_OP = 9; // WHERE_OPS.index('like')

function countComponent1(sql: SpiderSql): number {
  let count = 0;
  if (sql.where.length > 0) count++;
  if (sql.groupBy.length > 0) count++;
  if (sql.orderBy.length > 0) count++;
  if (sql.limit !== null && sql.limit !== undefined) count++;
  if (sql.from.table_units.length > 0) count += sql.from.table_units.length - 1;
  const andOr = [...everyOther(sql.from.conds, 1), ...everyOther(sql.where, 1), ...everyOther(sql.having, 1)];
  count += andOr.filter((t) => t === 'or').length;
  const conds = [...everyOther(sql.from.conds, 0), ...everyOther(sql.where, 0), ...everyOther(sql.having, 0)];
  count += conds.filter((c) => Array.isArray(c) && c[1] === LIKE_OP).length;
  return count;
}

function countOthers(sql: SpiderSql): number {
  let count = 0;
  let aggCount = countAgg(sql.select[1]);
  aggCount += countAgg(everyOther(sql.where, 0));
  aggCount += countAgg(sql.groupBy);
  if (sql.orderBy.length > 0) {
    const valUnits = sql.orderBy[1] ?? [];
    const colUnits = [
      ...valUnits.map((u) => u[1]).filter((u): u is unknown[] => Array.isArray(u)),
      ...valUnits.map((u) => u[2]).filter((u): u is unknown[] => Array.isArray(u)),
    ];
    aggCount += countAgg(colUnits);
  }
  aggCount += countAgg(sql.having);
  if (aggCount > 1) count++;
  if (sql.select[1].length > 1) count++;
  if (sql.where.length > 1) count++;
  if (sql.groupBy.length > 1) count++;
  return count;
}

export function spiderHardness(parsedSql: unknown): SpiderHardness {
  if (!isSql(parsedSql)) throw new Error('spiderHardness: expected the parsed `sql` object of a Spider item');
  const sql = parsedSql;
  const c1 = countComponent1(sql);
  const c2 = nestedSql(sql).length;
  const others = countOthers(sql);
  if (c1 <= 1 && others === 0 && c2 === 0) return 'easy';
  if ((others <= 2 && c1 <= 1 && c2 === 0) || (c1 <= 2 && others < 2 && c2 === 0)) return 'medium';
  if (
    (others > 2 && c1 <= 2 && c2 === 0) ||
    (c1 > 2 && c1 <= 3 && others <= 2 && c2 === 0) ||
    (c1 <= 1 && others === 0 && c2 <= 1)
  ) {
    return 'hard';
  }
  return 'extra';
}
