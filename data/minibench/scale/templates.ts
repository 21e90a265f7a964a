/**
 * Question/SQL templates of the scale dataset. Each draws tables, columns and values (from the database's own data)
 * with the generator's PRNG and returns a question and its gold SQL, or undefined when the database has nothing the
 * template fits. The generator runs every gold SQL and keeps only those that return rows.
 */
import type { ColumnFacts, ColumnRole, DatabaseFacts, ForeignKeyFacts, TableFacts } from './schema-facts';

export type Rng = () => number;

export interface Drawn {
  template: string;
  question: string;
  sql: string;
}

export function pick<T>(rng: Rng, items: readonly T[]): T | undefined {
  return items.length === 0 ? undefined : items[Math.floor(rng() * items.length)];
}

function columnsOf(table: TableFacts, ...roles: ColumnRole[]): ColumnFacts[] {
  return table.columns.filter((c) => roles.includes(c.role) && c.values.length > 0);
}

function sqlValue(v: string | number): string {
  return typeof v === 'number' ? String(v) : `'${v}'`;
}

function questionValue(v: string | number): string {
  return typeof v === 'number' ? String(v) : `"${v}"`;
}

/** A table with columns of the first role list and, separately, of the second. */
function tableWith(rng: Rng, db: DatabaseFacts, a: ColumnRole[], b: ColumnRole[]): { table: TableFacts; first: ColumnFacts; second: ColumnFacts } | undefined {
  const fitting = db.tables.filter((t) => columnsOf(t, ...a).length > 0 && columnsOf(t, ...b).some((c) => columnsOf(t, ...a).some((d) => d !== c)));
  const table = pick(rng, fitting);
  if (!table) return undefined;
  const first = pick(rng, columnsOf(table, ...a))!;
  const second = pick(rng, columnsOf(table, ...b).filter((c) => c !== first));
  return second ? { table, first, second } : undefined;
}

const SHOWN: ColumnRole[] = ['label', 'category', 'number', 'date'];
const FILTERED: ColumnRole[] = ['category', 'label'];
const COMPARISONS = [
  { op: '>', words: 'greater than' },
  { op: '<', words: 'less than' },
  { op: '>=', words: 'of at least' },
  { op: '<=', words: 'of at most' },
] as const;
const AGGREGATES = [
  { fn: 'AVG', words: 'average' },
  { fn: 'MAX', words: 'highest' },
  { fn: 'MIN', words: 'lowest' },
  { fn: 'SUM', words: 'total' },
] as const;

type Template = (rng: Rng, db: DatabaseFacts) => Drawn | undefined;

const filterEquals: Template = (rng, db) => {
  const d = tableWith(rng, db, SHOWN, FILTERED);
  if (!d) return undefined;
  const v = pick(rng, d.second.values)!;
  return {
    template: 'filter-equals',
    question: `List the ${d.first.readable} of the ${d.table.readable} whose ${d.second.readable} is ${questionValue(v)}.`,
    sql: `SELECT ${d.first.name} FROM ${d.table.name} WHERE ${d.second.name} = ${sqlValue(v)}`,
  };
};

const countCompare: Template = (rng, db) => {
  const table = pick(rng, db.tables.filter((t) => columnsOf(t, 'number', 'date').length > 0));
  if (!table) return undefined;
  const c = pick(rng, columnsOf(table, 'number', 'date'))!;
  const cmp = pick(rng, COMPARISONS)!;
  const v = pick(rng, c.values)!;
  const words = c.role === 'date' ? cmp.words.replace('greater than', 'later than').replace('less than', 'earlier than') : cmp.words;
  return {
    template: 'count-compare',
    question: `How many ${table.readable} have a ${c.readable} ${words} ${questionValue(v)}?`,
    sql: `SELECT COUNT(*) FROM ${table.name} WHERE ${c.name} ${cmp.op} ${sqlValue(v)}`,
  };
};

const aggregateFiltered: Template = (rng, db) => {
  const d = tableWith(rng, db, ['number'], FILTERED);
  if (!d) return undefined;
  const agg = pick(rng, AGGREGATES)!;
  const v = pick(rng, d.second.values)!;
  return {
    template: 'aggregate-filtered',
    question: `What is the ${agg.words} ${d.first.readable} of the ${d.table.readable} whose ${d.second.readable} is ${questionValue(v)}?`,
    sql: `SELECT ${agg.fn}(${d.first.name}) FROM ${d.table.name} WHERE ${d.second.name} = ${sqlValue(v)}`,
  };
};

const groupCount: Template = (rng, db) => {
  const d = tableWith(rng, db, ['category'], ['number', 'date']);
  if (!d) return undefined;
  const cmp = pick(rng, COMPARISONS)!;
  const v = pick(rng, d.second.values)!;
  return {
    template: 'group-count',
    question: `For each ${d.first.readable}, how many ${d.table.readable} have a ${d.second.readable} ${cmp.words} ${questionValue(v)}?`,
    sql: `SELECT ${d.first.name}, COUNT(*) FROM ${d.table.name} WHERE ${d.second.name} ${cmp.op} ${sqlValue(v)} GROUP BY ${d.first.name}`,
  };
};

const topK: Template = (rng, db) => {
  const d = tableWith(rng, db, SHOWN, ['number', 'date']);
  if (!d || !d.table.primaryKey) return undefined;
  const k = 1 + Math.floor(rng() * 10);
  const highest = rng() < 0.5;
  const filter = rng() < 0.5 ? pick(rng, columnsOf(d.table, 'category').filter((c) => c !== d.first && c !== d.second)) : undefined;
  const v = filter ? pick(rng, filter.values)! : undefined;
  const superlative = d.second.role === 'date' ? (highest ? 'latest' : 'earliest') : highest ? 'highest' : 'lowest';
  const among = filter ? ` among those whose ${filter.readable} is ${questionValue(v!)}` : '';
  const where = filter ? ` WHERE ${filter.name} = ${sqlValue(v!)}` : '';
  return {
    template: 'top-k',
    question: `List the ${d.first.readable} of the ${k} ${d.table.readable} with the ${superlative} ${d.second.readable}${among}.`,
    sql: `SELECT ${d.first.name} FROM ${d.table.name}${where} ORDER BY ${d.second.name} ${highest ? 'DESC' : 'ASC'}, ${d.table.primaryKey} ASC LIMIT ${k}`,
  };
};

function tableNamed(db: DatabaseFacts, name: string): TableFacts | undefined {
  return db.tables.find((t) => t.name === name);
}

function joinOn(fk: ForeignKeyFacts): string {
  return `FROM ${fk.child} AS T1 JOIN ${fk.parent} AS T2 ON T1.${fk.childColumn} = T2.${fk.parentColumn}`;
}

const joinFilterChild: Template = (rng, db) => {
  const fk = pick(rng, db.foreignKeys);
  const child = fk && tableNamed(db, fk.child);
  const parent = fk && tableNamed(db, fk.parent);
  if (!fk || !child || !parent) return undefined;
  const shown = pick(rng, columnsOf(parent, 'label', 'category'));
  const filter = pick(rng, columnsOf(child, 'category', 'label'));
  if (!shown || !filter) return undefined;
  const v = pick(rng, filter.values)!;
  return {
    template: 'join-filter-child',
    question: `List the distinct ${shown.readable} of the ${parent.readable} that have ${child.readable} whose ${filter.readable} is ${questionValue(v)}.`,
    sql: `SELECT DISTINCT T2.${shown.name} ${joinOn(fk)} WHERE T1.${filter.name} = ${sqlValue(v)}`,
  };
};

const joinFilterParent: Template = (rng, db) => {
  const fk = pick(rng, db.foreignKeys);
  const child = fk && tableNamed(db, fk.child);
  const parent = fk && tableNamed(db, fk.parent);
  if (!fk || !child || !parent) return undefined;
  const shown = pick(rng, columnsOf(child, ...SHOWN));
  const filter = pick(rng, columnsOf(parent, 'category', 'label'));
  if (!shown || !filter) return undefined;
  const v = pick(rng, filter.values)!;
  return {
    template: 'join-filter-parent',
    question: `Show the ${shown.readable} of the ${child.readable} whose ${parent.readable} has ${filter.readable} ${questionValue(v)}.`,
    sql: `SELECT T1.${shown.name} ${joinOn(fk)} WHERE T2.${filter.name} = ${sqlValue(v)}`,
  };
};

const joinTopGroups: Template = (rng, db) => {
  const fk = pick(rng, db.foreignKeys);
  const child = fk && tableNamed(db, fk.child);
  const parent = fk && tableNamed(db, fk.parent);
  if (!fk || !child || !parent) return undefined;
  const group = pick(rng, columnsOf(parent, 'label', 'category'));
  const measure = pick(rng, columnsOf(child, 'number', 'date'));
  if (!group || !measure) return undefined;
  const k = 1 + Math.floor(rng() * 5);
  const cmp = pick(rng, COMPARISONS)!;
  const v = pick(rng, measure.values)!;
  return {
    template: 'join-top-groups',
    question: `Which ${k} ${group.readable} values of the ${parent.readable} have the most ${child.readable} with a ${measure.readable} ${cmp.words} ${questionValue(v)}, and how many each?`,
    sql: `SELECT T2.${group.name}, COUNT(*) ${joinOn(fk)} WHERE T1.${measure.name} ${cmp.op} ${sqlValue(v)} GROUP BY T2.${group.name} ORDER BY COUNT(*) DESC, T2.${group.name} ASC LIMIT ${k}`,
  };
};

const aboveAverage: Template = (rng, db) => {
  const d = tableWith(rng, db, SHOWN, ['number']);
  if (!d) return undefined;
  const filter = pick(rng, columnsOf(d.table, 'category').filter((c) => c !== d.first));
  if (!filter) return undefined;
  const v = pick(rng, filter.values)!;
  return {
    template: 'above-average',
    question: `List the ${d.first.readable} of the ${d.table.readable} whose ${filter.readable} is ${questionValue(v)} and whose ${d.second.readable} is above the average ${d.second.readable} of all ${d.table.readable}.`,
    sql: `SELECT ${d.first.name} FROM ${d.table.name} WHERE ${filter.name} = ${sqlValue(v)} AND ${d.second.name} > (SELECT AVG(${d.second.name}) FROM ${d.table.name})`,
  };
};

const betweenRange: Template = (rng, db) => {
  const table = pick(rng, db.tables.filter((t) => columnsOf(t, 'number', 'date').some((c) => c.values.length > 2)));
  if (!table) return undefined;
  const c = pick(rng, columnsOf(table, 'number', 'date').filter((col) => col.values.length > 2))!;
  const i = Math.floor(rng() * c.values.length);
  const j = Math.floor(rng() * c.values.length);
  if (i === j) return undefined;
  const [lo, hi] = [c.values[Math.min(i, j)]!, c.values[Math.max(i, j)]!];
  return {
    template: 'between-range',
    question: `How many ${table.readable} have a ${c.readable} between ${questionValue(lo)} and ${questionValue(hi)}?`,
    sql: `SELECT COUNT(*) FROM ${table.name} WHERE ${c.name} BETWEEN ${sqlValue(lo)} AND ${sqlValue(hi)}`,
  };
};

const havingCount: Template = (rng, db) => {
  const d = tableWith(rng, db, ['category'], ['number', 'date']);
  if (!d) return undefined;
  const k = 1 + Math.floor(rng() * 30);
  const cmp = pick(rng, COMPARISONS)!;
  const v = pick(rng, d.second.values)!;
  return {
    template: 'having-count',
    question: `Which ${d.first.readable} values appear in more than ${k} ${d.table.readable} with a ${d.second.readable} ${cmp.words} ${questionValue(v)}?`,
    sql: `SELECT ${d.first.name} FROM ${d.table.name} WHERE ${d.second.name} ${cmp.op} ${sqlValue(v)} GROUP BY ${d.first.name} HAVING COUNT(*) > ${k}`,
  };
};

/** Every template, with the weight it is drawn with. */
export const TEMPLATES: ReadonlyArray<{ name: string; weight: number; draw: Template }> = [
  { name: 'filter-equals', weight: 3, draw: filterEquals },
  { name: 'count-compare', weight: 2, draw: countCompare },
  { name: 'aggregate-filtered', weight: 2, draw: aggregateFiltered },
  { name: 'group-count', weight: 1, draw: groupCount },
  { name: 'top-k', weight: 2, draw: topK },
  { name: 'join-filter-child', weight: 2, draw: joinFilterChild },
  { name: 'join-filter-parent', weight: 2, draw: joinFilterParent },
  { name: 'join-top-groups', weight: 1, draw: joinTopGroups },
  { name: 'above-average', weight: 1, draw: aboveAverage },
  { name: 'between-range', weight: 1, draw: betweenRange },
  { name: 'having-count', weight: 1, draw: havingCount },
];

const TOTAL_WEIGHT = TEMPLATES.reduce((s, t) => s + t.weight, 0);

export function drawTemplate(rng: Rng): Template {
  let r = rng() * TOTAL_WEIGHT;
  for (const t of TEMPLATES) {
    r -= t.weight;
    if (r < 0) return t.draw;
  }
  return TEMPLATES[TEMPLATES.length - 1]!.draw;
}
