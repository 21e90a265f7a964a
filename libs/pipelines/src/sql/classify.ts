import type { DatabaseSchema } from '@sqlsweep/datasets';
import { lexSql } from '@sqlsweep/sql-sandbox';

/**
 * What one significant token of a SQL query is. Identifiers are split into tables (including table aliases, which
 * stand for a table) and columns (including result-column aliases).
 */
export type SqlPieceKind = 'keyword' | 'function' | 'table' | 'alias' | 'column' | 'value' | 'punct';

export interface SqlPiece {
  kind: SqlPieceKind;
  /** The token text as written (several lexer tokens for a decimal number like `1.5`). */
  text: string;
  /** For identifiers: the unquoted name. */
  name?: string;
  /** For aliases and alias-qualified columns: the table the alias stands for, when known. */
  table?: string;
  /** Whitespace or a comment came before this piece in the source. */
  spaced: boolean;
}

const KEYWORDS = new Set(
  `ABORT ALL ALTER AND AS ASC BETWEEN BY CASE CAST COLLATE CREATE CROSS CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP
  DELETE DESC DISTINCT DROP ELSE END ESCAPE EXCEPT EXISTS FALSE FILTER FROM FULL GLOB GROUP HAVING IN INNER INSERT
  INTERSECT INTO IS ISNULL JOIN LEFT LIKE LIMIT MATCH NATURAL NOT NOTNULL NULL NULLS FIRST LAST OFFSET ON OR ORDER OUTER
  OVER PARTITION RECURSIVE REGEXP RIGHT ROWS SELECT SET THEN TRUE UNION UPDATE USING VALUES WHEN WHERE WINDOW WITH`.split(/\s+/),
);
const TYPE_NAMES = new Set('REAL INTEGER INT TEXT FLOAT NUMERIC DECIMAL VARCHAR CHAR BLOB DOUBLE BIGINT DATE DATETIME'.split(' '));
/** Keywords after which a table name follows. */
const TABLE_INTRODUCERS = new Set(['FROM', 'JOIN']);
/** Keywords that end a FROM clause's comma-separated table list. */
const FROM_ENDERS = new Set(['WHERE', 'GROUP', 'ORDER', 'LIMIT', 'HAVING', 'UNION', 'INTERSECT', 'EXCEPT', 'ON', 'USING', 'SELECT', 'WINDOW']);

/** Marks "the thing just closed was a FROM subquery", which an alias may follow but which is no schema table. */
const SUBQUERY = '\u0000subquery';

interface RawPiece { kind: 'word' | 'string' | 'quoted' | 'number' | 'punct'; text: string; spaced: boolean }

function unquote(text: string): string {
  const open = text[0];
  if (open === '[') return text.slice(1, -1);
  const close = text[text.length - 1] === open ? -1 : undefined;
  return text.slice(1, close).split(open + open).join(open);
}

function rawPieces(sql: string): RawPiece[] {
  const out: RawPiece[] = [];
  let spaced = false;
  const tokens = lexSql(sql);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === 'space' || t.kind === 'comment') { spaced = true; continue; }
    if (t.kind === 'word' && /^[0-9]/.test(t.text)) {
      // `1.5` lexes as word, '.', word: one number.
      let text = t.text;
      if (tokens[i + 1]?.text === '.' && /^[0-9]/.test(tokens[i + 2]?.text ?? '')) { text += `.${tokens[i + 2].text}`; i += 2; }
      out.push({ kind: 'number', text, spaced });
    } else if (t.kind === 'other' && t.text === '.' && /^[0-9]/.test(tokens[i + 1]?.text ?? '') && out[out.length - 1]?.kind !== 'word' && out[out.length - 1]?.kind !== 'quoted') {
      out.push({ kind: 'number', text: `.${tokens[i + 1].text}`, spaced }); i += 1;
    } else if (t.kind === 'other') {
      // Two-character operators stay one piece.
      const two = t.text + (tokens[i + 1]?.kind === 'other' ? tokens[i + 1].text : '');
      if (['<=', '>=', '<>', '!=', '==', '||'].includes(two)) { out.push({ kind: 'punct', text: two, spaced }); i += 1; }
      else out.push({ kind: 'punct', text: t.text, spaced });
    } else {
      out.push({ kind: t.kind as RawPiece['kind'], text: t.text, spaced });
    }
    spaced = false;
  }
  return out;
}

interface SchemaNames { tables: Set<string>; columns: Set<string> }

function schemaNames(schema: DatabaseSchema | undefined): SchemaNames | undefined {
  if (!schema) return undefined;
  return {
    tables: new Set(schema.tables.map((t) => t.name.toLowerCase())),
    columns: new Set(schema.tables.flatMap((t) => t.columns.map((c) => c.name.toLowerCase()))),
  };
}

/**
 * Splits a SQL query into classified pieces with a real SQLite tokenizer and the clause structure: names after
 * FROM/JOIN (and in a FROM clause's comma list) are tables, a name right after a table is its alias, `x.y` is
 * table-or-alias `.` column, other names are columns. With a schema, a double-quoted token that names nothing in the
 * schema is a string literal (SQLite's double-quoted-string fallback, common in Spider gold SQL); without one, a
 * double-quoted token is a value unless it stands where a name must.
 */
export function classifySql(sql: string, schema?: DatabaseSchema): SqlPiece[] {
  const names = schemaNames(schema);
  const raw = rawPieces(sql);
  const pieces: SqlPiece[] = [];
  const aliases = new Map<string, string>();
  let inFromList = false;
  let lastTableName: string | undefined; // the table just named in table position (an alias may follow)
  const parens: boolean[] = []; // per open parenthesis: does it open a FROM/JOIN subquery?
  for (let i = 0; i < raw.length; i++) {
    const p = raw[i];
    const prev = pieces[pieces.length - 1];
    const next = raw[i + 1];
    const push = (kind: SqlPieceKind, extra: Partial<SqlPiece> = {}): void => { pieces.push({ kind, text: p.text, spaced: p.spaced, ...extra }); };
    const takenTable = lastTableName;
    lastTableName = undefined;
    if (p.kind === 'number' || p.kind === 'string') { push('value'); continue; }
    if (p.kind === 'punct') {
      push('punct');
      if (p.text === '(') parens.push(prev?.kind === 'keyword' && TABLE_INTRODUCERS.has(prev.text));
      // `FROM (SELECT ...) s`: the name after a FROM subquery is its alias, standing for no schema table.
      else if (p.text === ')' && parens.pop() === true) lastTableName = SUBQUERY;
      continue;
    }
    const word = p.kind === 'word' ? p.text.toUpperCase() : '';
    if (p.kind === 'word' && KEYWORDS.has(word)) {
      push('keyword', { text: word });
      if (word === 'AS' && takenTable !== undefined) lastTableName = takenTable;
      if (word === 'FROM') inFromList = true;
      else if (FROM_ENDERS.has(word)) inFromList = false;
      continue;
    }
    if (p.kind === 'word' && next?.kind === 'punct' && next.text === '(' && !(prev && (prev.kind === 'keyword' && TABLE_INTRODUCERS.has(prev.text.toUpperCase())))) {
      push('function', { text: p.text.toUpperCase() });
      continue;
    }
    if (p.kind === 'word' && prev?.kind === 'keyword' && prev.text === 'AS' && TYPE_NAMES.has(word) && next?.text === ')') {
      push('keyword', { text: word });
      continue;
    }
    // An identifier (bare word or quoted) or, for a double-quoted token, possibly a string literal.
    const name = p.kind === 'quoted' ? unquote(p.text) : p.text;
    const lower = name.toLowerCase();
    const qualifies = next?.kind === 'punct' && next.text === '.';
    const qualified = prev?.kind === 'punct' && prev.text === '.';
    const tablePosition = !qualified && !qualifies && prev !== undefined && (
      (prev.kind === 'keyword' && TABLE_INTRODUCERS.has(prev.text)) || (inFromList && prev.kind === 'punct' && prev.text === ','));
    const aliasPosition = !qualified && !qualifies && (
      takenTable !== undefined || (prev?.kind === 'keyword' && prev.text === 'AS' && pieces[pieces.length - 2]?.kind === 'table'));
    if (p.text.startsWith('"') && !qualifies && !qualified && !tablePosition && !aliasPosition) {
      const known = names ? names.tables.has(lower) || names.columns.has(lower) : false;
      if (!known) { push('value'); continue; }
    }
    if (tablePosition) {
      push('table', { name });
      lastTableName = name;
      continue;
    }
    if (aliasPosition) {
      const owner = takenTable ?? pieces[pieces.length - 2]?.name;
      const table = owner === SUBQUERY ? undefined : owner;
      if (table !== undefined) aliases.set(lower, table);
      push('alias', { name, table });
      continue;
    }
    if (prev?.kind === 'keyword' && prev.text === 'AS') { push('column', { name }); continue; }
    if (qualifies) {
      const table = aliases.get(lower);
      push(table !== undefined ? 'alias' : 'table', { name, table });
      continue;
    }
    if (qualified) {
      const owner = pieces[pieces.length - 2];
      push('column', { name, table: owner?.kind === 'alias' ? owner.table : owner?.name });
      continue;
    }
    if (aliases.has(lower)) { push('alias', { name, table: aliases.get(lower) }); continue; }
    if (names && names.tables.has(lower) && !names.columns.has(lower)) { push('table', { name }); continue; }
    push('column', { name });
  }
  // An alias used (as `T1.x`) before its FROM clause was read: resolve now that every alias is known.
  for (const piece of pieces) {
    if (piece.kind === 'table' && piece.name !== undefined && aliases.has(piece.name.toLowerCase()) && !isSchemaTable(names, piece.name)) {
      piece.kind = 'alias';
      piece.table = aliases.get(piece.name.toLowerCase());
    }
  }
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i];
    if (piece.kind === 'column' && pieces[i - 1]?.text === '.' && pieces[i - 2]?.kind === 'alias') piece.table = pieces[i - 2].table;
  }
  return pieces;
}

function isSchemaTable(names: SchemaNames | undefined, name: string): boolean {
  return names !== undefined && names.tables.has(name.toLowerCase());
}
