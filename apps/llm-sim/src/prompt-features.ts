import type { DatabaseSchema, SpiderHardness } from '@sqlsweep/datasets';
import { parseSpiderSql, spiderHardness } from '@sqlsweep/datasets';
import { sqlSkeleton, touchedSchema } from '@sqlsweep/pipelines/src/sql';
import type { GoldIndex, GoldItem } from './gold-index';

export type Hardness = SpiderHardness;
/** Spider's hardness levels, easiest first (calibration iterates them in this order). */
export const HARDNESS_LEVELS: readonly Hardness[] = ['easy', 'medium', 'hard', 'extra'];

/** What a prompt gives the simulated model towards the target item's gold SQL (issue 19). */
export interface PromptFeatures {
  /** Share of the gold's tables and columns present in the prompt's schema text (0 when the prompt shows no schema). */
  schemaRecall: number;
  /** Every gold table is shown; false: the answer must be wrong, using a table the prompt shows. */
  goldReachable: boolean;
  /** Tables shown that the gold does not use. */
  noiseTables: number;
  /** Columns shown (of all shown tables) that the gold does not use. */
  noiseColumns: number;
  /** Few-shot examples (SQL of other questions) in the prompt. */
  examples: number;
  /** One example's SQL skeleton equals the gold's. */
  skeletonMatch: boolean;
  /** Sub-questions or a simplified question of the target are shown. */
  decomposition: boolean;
  /** The item's BIRD evidence is shown. */
  evidence: boolean;
  /** Database values are shown (related contents, sample values). */
  values: boolean;
  /** A correction/revision prompt that includes an execution error. */
  feedbackError: boolean;
  /** ... that says the previous result was empty. */
  feedbackEmpty: boolean;
  /** ... that includes an explanation of the previous SQL. */
  feedbackExplanation: boolean;
  /** Spider hardness of the gold; BIRD's simple/moderate/challenging as easy/medium/hard. */
  hardness: Hardness;
}

/** The features, and the prompt's schema they were read from (the wrong-table mistake draws from it). */
export interface PromptReading {
  features: PromptFeatures;
  /** Tables the prompt's schema shows, lower-cased, in prompt order. */
  shownTables: string[];
  /** Gold tables (lower-cased) the prompt does not show. */
  missingGoldTables: string[];
}

interface GoldFacts {
  tables: string[];
  /** `table.column`, lower-cased. */
  columns: string[];
  skeleton: string;
  hardness: Hardness;
}

const goldFacts = new WeakMap<GoldItem, GoldFacts>();

const BIRD_DIFFICULTY: Record<string, Hardness> = { simple: 'easy', moderate: 'medium', challenging: 'hard' };

function unquote(name: string): string {
  const t = name.trim();
  if (/^".*"$/s.test(t)) return t.slice(1, -1).replace(/""/g, '"');
  if (/^`.*`$/s.test(t) || /^\[.*\]$/s.test(t)) return t.slice(1, -1);
  return t;
}

/** skeletonKey runs on every few-shot example of every request, and the same examples recur; bounded so a long run cannot grow it without limit. */
const skeletonKeys = new Map<string, string>();
const SKELETON_KEYS_MAX = 10_000;

function skeletonKey(sql: string): string {
  const known = skeletonKeys.get(sql);
  if (known !== undefined) return known;
  if (skeletonKeys.size >= SKELETON_KEYS_MAX) skeletonKeys.clear();
  const key = skeletonKeyOf(sql);
  skeletonKeys.set(sql, key);
  return key;
}

function skeletonKeyOf(sql: string): string {
  try {
    return sqlSkeleton(sql).replace(/\s+/g, ' ').toUpperCase();
  } catch {
    return sql.replace(/\s+/g, ' ').toUpperCase();
  }
}

function hardnessOf(item: GoldItem): Hardness {
  if (item.difficulty && BIRD_DIFFICULTY[item.difficulty]) return BIRD_DIFFICULTY[item.difficulty]!;
  try {
    return spiderHardness(parseSpiderSql(item.sql));
  } catch {
    return 'medium'; // a query Spider's grammar cannot read (BIRD functions, quoting) and no difficulty shipped
  }
}

/** The item's database as the pipelines' SQL helpers read it (names only: types and values play no part here). */
function databaseSchemaOf(item: GoldItem, index: GoldIndex): DatabaseSchema {
  const db = index.schemaOf(item);
  return {
    dbId: item.dbId,
    sqlitePath: item.dbFile ?? '',
    tables: db.tables.map((name) => ({
      name,
      columns: (db.columnsByTable.get(name.toLowerCase()) ?? []).map((c) => ({ name: c, type: '', primaryKey: false, sampleValues: [] })),
    })),
  };
}

function factsOf(item: GoldItem, index: GoldIndex): GoldFacts {
  const cached = goldFacts.get(item);
  if (cached) return cached;
  const schema = databaseSchemaOf(item, index);
  let tables: string[] = [];
  let columns: string[] = [];
  if (schema.tables.length > 0) {
    const touched = touchedSchema(item.sql, schema);
    tables = touched.tables.map((t) => t.toLowerCase());
    columns = touched.columns.map((c) => `${c.table}.${c.column}`.toLowerCase());
  }
  if (tables.length === 0) {
    // No database file: the tables the FROM and JOIN clauses name.
    tables = [...new Set([...item.sql.matchAll(/\b(?:FROM|JOIN)\s+("[^"]+"|`[^`]+`|\[[^\]]+\]|\w+)/gi)].map((m) => unquote(m[1]!).toLowerCase()))];
  }
  const facts: GoldFacts = { tables, columns, skeleton: skeletonKey(item.sql), hardness: hardnessOf(item) };
  goldFacts.set(item, facts);
  return facts;
}

const DDL_START = /^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?("(?:[^"]|"")+"|`[^`]+`|\[[^\]]+\]|[\w$]+)\s*\(\s*(.*)$/i;
const DDL_CONSTRAINT = /^(?:PRIMARY\s+KEY|FOREIGN\s+KEY|UNIQUE|CHECK|CONSTRAINT)\b/i;
const COLUMN_NAME = /^("(?:[^"]|"")+"|`[^`]+`|\[[^\]]+\]|[\w$]+)/;

/**
 * The schema a prompt shows: CREATE TABLE blocks (renderSchemaDdl, one column a line or all on one line) and the
 * column-line view (`# Table t` then "- `t`.`c` (...)" lines, UCS-SQL's pre-filtered schema). Lower-cased table name
 * to its lower-cased columns, in prompt order. Examples' one-line schemas ("Schema: singer(singer_id, ...)") are not a
 * schema of the target and are not read.
 */
export function shownSchema(prompt: string): Map<string, Set<string>> {
  const shown = new Map<string, Set<string>>();
  const add = (table: string, column?: string): void => {
    const key = unquote(table).toLowerCase();
    const cols = shown.get(key) ?? new Set<string>();
    if (column !== undefined) cols.add(unquote(column).toLowerCase());
    shown.set(key, cols);
  };
  const lines = prompt.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = DDL_START.exec(lines[i]!);
    if (start) {
      const table = start[1]!;
      add(table);
      // The column definitions: the rest of this line, then the following lines until the closing parenthesis.
      const body: string[] = [start[2]!];
      let depth = 1 + (start[2]!.match(/\(/g)?.length ?? 0) - (start[2]!.match(/\)/g)?.length ?? 0);
      while (depth > 0 && i + 1 < lines.length) {
        const line = lines[++i]!;
        body.push(line);
        depth += (line.match(/\(/g)?.length ?? 0) - (line.match(/\)/g)?.length ?? 0);
      }
      for (const definition of splitDefinitions(body.join('\n'))) {
        const d = definition.trim();
        if (!d || DDL_CONSTRAINT.test(d)) continue;
        const name = COLUMN_NAME.exec(d);
        if (name) add(table, name[1]!);
      }
      continue;
    }
    const heading = /^#\s*Table\s+(.+?)\s*$/.exec(lines[i]!);
    if (heading) add(heading[1]!);
    const columnLine = /^\s*-\s*`([^`]+)`\.`([^`]+)`/.exec(lines[i]!);
    if (columnLine) add(columnLine[1]!, columnLine[2]!);
  }
  return shown;
}

/** A CREATE TABLE body split at its top-level commas (types such as DECIMAL(10,2) keep their commas). */
function splitDefinitions(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of body) {
    if (ch === '(') depth++;
    if (ch === ')') {
      if (depth === 0) break; // the table's closing parenthesis
      depth--;
    }
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

/** Lines before a fenced query that say it is the query under review, not an example. */
const REVIEWED_QUERY = /(?:previous|predicted|wrong|incorrect)\s+(?:query|sql)|query to correct/i;

interface ExampleScan {
  sqls: string[];
  /** Offset of the end of the last example in the prompt (0 when none): the target's section follows it. */
  end: number;
}

/** Few-shot examples: ```sql fenced queries and `SQL: ...` lines, except the query a correction prompt reviews. */
function exampleSqls(prompt: string): ExampleScan {
  const lines = prompt.split('\n');
  const sqls: string[] = [];
  let offset = 0;
  let end = 0;
  const offsets: number[] = [];
  for (const line of lines) {
    offsets.push(offset);
    offset += line.length + 1;
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const inline = /^\s*SQL:\s*(\S.*)$/.exec(line);
    if (inline && /^\s*(?:SELECT|WITH)\b/i.test(inline[1]!)) {
      sqls.push(inline[1]!);
      end = offsets[i]! + line.length;
      continue;
    }
    if (!/^\s*```sql\s*$/i.test(line)) continue;
    const close = lines.findIndex((l, j) => j > i && /^\s*```\s*$/.test(l));
    if (close < 0) break;
    const body = lines.slice(i + 1, close).join('\n').trim();
    const before = lines.slice(Math.max(0, i - 2), i).join('\n');
    if (/^(?:SELECT|WITH)\b/i.test(body) && !REVIEWED_QUERY.test(before)) {
      sqls.push(body);
      end = offsets[close]! + lines[close]!.length;
    }
    i = close;
  }
  return { sqls, end };
}

const normalize = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** For each line that `heading` starts: the heading line and the lines after it, up to a blank line or the next `##` heading. */
function sectionsAt(prompt: string, heading: RegExp): Array<{ head: string; body: string }> {
  const lines = prompt.split('\n');
  const out: Array<{ head: string; body: string }> = [];
  lines.forEach((line, i) => {
    if (!heading.test(line)) return;
    const body: string[] = [];
    for (let j = i + 1; j < lines.length && lines[j]!.trim() !== '' && !/^#{2,}\s/.test(lines[j]!); j++) body.push(lines[j]!);
    out.push({ head: line, body: body.join('\n') });
  });
  return out;
}

const FEEDBACK_HEADING = /^[#\s]*execution\s+feedback\b/i;
const ERROR_TEXT = /sqlite error|query failed|no such (?:table|column|function)|syntax error|ambiguous column|held no sql|no query could be read/i;
const EMPTY_TEXT = /returned no rows|\bempty result|\(empty\)|returned nothing|\b0 rows/i;

/**
 * Reads a prompt for the features of issue 19. The target is `item` (GoldIndex.findTarget); its gold tables and
 * columns come from the gold SQL read against the item's database (aliases resolved), its skeleton from
 * libs/pipelines' sqlSkeleton.
 */
export function readPrompt(prompt: string, item: GoldItem, index: GoldIndex): PromptReading {
  const gold = factsOf(item, index);
  const shown = shownSchema(prompt);
  const goldTables = new Set(gold.tables);
  const goldColumns = new Set(gold.columns);

  const shownGoldTables = gold.tables.filter((t) => shown.has(t));
  const shownGoldColumns = gold.columns.filter((c) => {
    const dot = c.indexOf('.');
    return shown.get(c.slice(0, dot))?.has(c.slice(dot + 1)) ?? false;
  });
  const wanted = gold.tables.length + gold.columns.length;
  const schemaRecall = shown.size === 0 ? 0 : wanted === 0 ? 1 : (shownGoldTables.length + shownGoldColumns.length) / wanted;
  let noiseTables = 0;
  let noiseColumns = 0;
  for (const [table, cols] of shown) {
    if (!goldTables.has(table)) noiseTables++;
    for (const c of cols) if (!goldColumns.has(`${table}.${c}`)) noiseColumns++;
  }

  const examples = exampleSqls(prompt);
  const target = prompt.slice(examples.end);
  const feedback = sectionsAt(prompt, FEEDBACK_HEADING).map((s) => `${s.head}\n${s.body}`).join('\n');
  const related = sectionsAt(prompt, /^[#\s]*related\s+(?:database\s+)?contents?\s*:/i)
    .map((s) => `${s.head.replace(/^[^:]*:/, '')}\n${s.body}`.trim())
    .some((s) => s.length > 0 && !/^\(?(?:none|no values)\b/i.test(s));

  const features: PromptFeatures = {
    schemaRecall,
    goldReachable: shown.size > 0 && shownGoldTables.length === gold.tables.length,
    noiseTables,
    noiseColumns,
    examples: examples.sqls.length,
    skeletonMatch: examples.sqls.some((sql) => skeletonKey(sql) === gold.skeleton),
    decomposition:
      /^\s*simplified question\s*:/im.test(target)
      || /^\s*sub-?questions?\s*:?\s*\n\s*1[.)]\s+\S[^\n]*\n\s*2[.)]\s+\S/im.test(target),
    evidence: item.evidence !== undefined && normalize(prompt).includes(normalize(item.evidence)),
    values:
      related
      || /^\s*-\s*`[^`]+`\.`[^`]+`.*\be\.g\.\s/m.test(prompt)
      || /"[^"\n]*" appears in \S+\.\S+:/.test(prompt)
      || /\b(?:sample|example) values?\s*:/i.test(prompt),
    feedbackError: ERROR_TEXT.test(feedback),
    feedbackEmpty: EMPTY_TEXT.test(feedback),
    feedbackExplanation: /^\s*explanation of the previous (?:query|sql)[ \t]*:[ \t]*\S/im.test(prompt),
    hardness: gold.hardness,
  };
  return { features, shownTables: [...shown.keys()], missingGoldTables: gold.tables.filter((t) => !shown.has(t)) };
}

export function promptFeatures(prompt: string, item: GoldItem, index: GoldIndex): PromptFeatures {
  return readPrompt(prompt, item, index).features;
}
