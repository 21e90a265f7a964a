/**
 * A port of Spider's `process_sql.py` parser (as used by the official evaluators to grade hardness), producing the
 * same nested structure Spider ships in dev.json's `sql` field. Column and table ids are the lower-cased names
 * (`__t.col__`), not validated against a schema: hardness only needs the structure. The tokenizer follows the
 * official one where valid gold SQL depends on it: quotes normalised to `"` and string values kept as single
 * tokens, everything lower-cased, brackets and commas split off, `! =`, `> =`, `< =` merged.
 */
const CLAUSE_KEYWORDS = new Set(['select', 'from', 'where', 'group', 'order', 'limit', 'intersect', 'union', 'except']);
const JOIN_KEYWORDS = new Set(['join', 'on', 'as']);
const WHERE_OPS = ['not', 'between', '=', '>', '<', '>=', '<=', '!=', 'in', 'like', 'is', 'exists'];
const UNIT_OPS = ['none', '-', '+', '*', '/'];
const AGG_OPS = ['none', 'max', 'min', 'count', 'sum', 'avg'];
const SQL_OPS = ['intersect', 'union', 'except'] as const;
const ORDER_OPS = new Set(['desc', 'asc']);

type ColUnit = [number, string, boolean];
type ValUnit = [number, ColUnit, ColUnit | null];
type Value = ParsedSql | string | number | ColUnit;
type CondUnit = [boolean, number, ValUnit, Value | null, Value | null];
type Conds = Array<CondUnit | 'and' | 'or'>;

export interface ParsedSql {
  select: [boolean, Array<[number, ValUnit]>];
  from: { table_units: Array<['table_unit', string] | ['sql', ParsedSql]>; conds: Conds };
  where: Conds;
  groupBy: ColUnit[];
  having: Conds;
  orderBy: [] | [string, ValUnit[]];
  limit: number | null;
  intersect: ParsedSql | null;
  union: ParsedSql | null;
  except: ParsedSql | null;
}

export class SpiderParseError extends Error {
  constructor(message: string, sql: string) {
    super(`cannot parse Spider SQL (${message}): ${sql}`);
    this.name = 'SpiderParseError';
  }
}

export function tokenizeSpiderSql(sql: string): string[] {
  let text = sql.replace(/'/g, '"');
  const quotes: number[] = [];
  for (let i = 0; i < text.length; i++) if (text[i] === '"') quotes.push(i);
  if (quotes.length % 2 !== 0) throw new SpiderParseError('unexpected quote', sql);
  const values = new Map<string, string>();
  for (let i = quotes.length - 1; i > 0; i -= 2) {
    const [a, b] = [quotes[i - 1], quotes[i]];
    const key = `__val_${a}_${b}__`;
    values.set(key, text.slice(a, b + 1));
    text = text.slice(0, a) + ` ${key} ` + text.slice(b + 1);
  }
  let toks = text
    .replace(/[()[\]{}<>,;!?%&@#$]/g, ' $& ')
    .split(/\s+/)
    .filter((t) => t.length > 0)
    .map((t) => values.get(t) ?? t.toLowerCase());
  for (let i = toks.length - 1; i > 0; i--) {
    if (toks[i] === '=' && ['!', '>', '<'].includes(toks[i - 1])) toks = [...toks.slice(0, i - 1), `${toks[i - 1]}=`, ...toks.slice(i + 1)];
  }
  return toks;
}

class Parser {
  constructor(
    private readonly toks: string[],
    private readonly sql: string,
  ) {}

  private fail(message: string): never {
    throw new SpiderParseError(message, this.sql);
  }

  private expect(idx: number, tok: string): void {
    if (this.toks[idx] !== tok) this.fail(`expected "${tok}" at token ${idx}, found "${this.toks[idx] ?? 'end'}"`);
  }

  private isEndOfClause(tok: string | undefined): boolean {
    return tok !== undefined && (CLAUSE_KEYWORDS.has(tok) || tok === ')' || tok === ';');
  }

  parseCol(idx: number): [number, string] {
    const tok = this.toks[idx];
    if (tok === undefined) this.fail('column expected at end of query');
    return [idx + 1, tok === '*' ? '__all__' : `__${tok}__`];
  }

  parseColUnit(start: number): [number, ColUnit] {
    let idx = start;
    let isBlock = false;
    let isDistinct = false;
    if (this.toks[idx] === '(') {
      isBlock = true;
      idx++;
    }
    const agg = AGG_OPS.indexOf(this.toks[idx]);
    if (agg >= 0) {
      idx++;
      this.expect(idx, '(');
      idx++;
      if (this.toks[idx] === 'distinct') {
        idx++;
        isDistinct = true;
      }
      const [next, col] = this.parseCol(idx);
      this.expect(next, ')');
      return [next + 1, [agg, col, isDistinct]];
    }
    if (this.toks[idx] === 'distinct') {
      idx++;
      isDistinct = true;
    }
    const [next, col] = this.parseCol(idx);
    idx = next;
    if (isBlock) {
      this.expect(idx, ')');
      idx++;
    }
    return [idx, [0, col, isDistinct]];
  }

  parseValUnit(start: number): [number, ValUnit] {
    let idx = start;
    let isBlock = false;
    if (this.toks[idx] === '(') {
      isBlock = true;
      idx++;
    }
    let unitOp = 0;
    let colUnit2: ColUnit | null = null;
    const [afterFirst, colUnit1] = this.parseColUnit(idx);
    idx = afterFirst;
    if (idx < this.toks.length && UNIT_OPS.includes(this.toks[idx])) {
      unitOp = UNIT_OPS.indexOf(this.toks[idx]);
      [idx, colUnit2] = this.parseColUnit(idx + 1);
    }
    if (isBlock) {
      this.expect(idx, ')');
      idx++;
    }
    return [idx, [unitOp, colUnit1, colUnit2]];
  }

  parseTableUnit(idx: number): [number, string] {
    const name = this.toks[idx];
    if (name === undefined) this.fail('table expected at end of query');
    return [this.toks[idx + 1] === 'as' ? idx + 3 : idx + 1, `__${name}__`];
  }

  parseValue(start: number): [number, Value] {
    let idx = start;
    let isBlock = false;
    if (this.toks[idx] === '(') {
      isBlock = true;
      idx++;
    }
    let val: Value;
    const tok = this.toks[idx];
    if (tok === undefined) this.fail('value expected at end of query');
    if (tok === 'select') {
      [idx, val] = this.parseSql(idx);
    } else if (tok.includes('"')) {
      val = tok;
      idx++;
    } else if (isPythonFloat(tok)) {
      val = Number(tok);
      idx++;
    } else {
      let end = idx;
      while (end < this.toks.length && ![',', ')', 'and'].includes(this.toks[end]) && !CLAUSE_KEYWORDS.has(this.toks[end]) && !JOIN_KEYWORDS.has(this.toks[end])) end++;
      // The official parser hands the column parser the tokens from the start of the value, '(' included.
      const sub = new Parser(this.toks.slice(start, end), this.sql);
      [, val] = sub.parseColUnit(0);
      idx = end;
    }
    if (isBlock) {
      this.expect(idx, ')');
      idx++;
    }
    return [idx, val];
  }

  parseCondition(start: number): [number, Conds] {
    let idx = start;
    const conds: Conds = [];
    while (idx < this.toks.length) {
      const [afterVal, valUnit] = this.parseValUnit(idx);
      idx = afterVal;
      let notOp = false;
      if (this.toks[idx] === 'not') {
        notOp = true;
        idx++;
      }
      const opId = WHERE_OPS.indexOf(this.toks[idx]);
      if (opId < 0) this.fail(`condition operator expected at token ${idx}, found "${this.toks[idx] ?? 'end'}"`);
      idx++;
      let val1: Value;
      let val2: Value | null = null;
      if (opId === 1) {
        [idx, val1] = this.parseValue(idx);
        this.expect(idx, 'and');
        [idx, val2] = this.parseValue(idx + 1);
      } else {
        [idx, val1] = this.parseValue(idx);
      }
      conds.push([notOp, opId, valUnit, val1, val2]);
      const tok = this.toks[idx];
      if (idx < this.toks.length && (this.isEndOfClause(tok) || JOIN_KEYWORDS.has(tok))) break;
      if (tok === 'and' || tok === 'or') {
        conds.push(tok);
        idx++;
      }
    }
    return [idx, conds];
  }

  parseSelect(start: number): ParsedSql['select'] {
    let idx = start;
    this.expect(idx, 'select');
    idx++;
    let isDistinct = false;
    if (this.toks[idx] === 'distinct') {
      idx++;
      isDistinct = true;
    }
    const units: Array<[number, ValUnit]> = [];
    while (idx < this.toks.length && !CLAUSE_KEYWORDS.has(this.toks[idx])) {
      let agg = 0;
      if (AGG_OPS.includes(this.toks[idx])) {
        agg = AGG_OPS.indexOf(this.toks[idx]);
        idx++;
      }
      const [next, valUnit] = this.parseValUnit(idx);
      idx = next;
      units.push([agg, valUnit]);
      if (this.toks[idx] === ',') idx++;
    }
    return [isDistinct, units];
  }

  parseFrom(start: number): [number, ParsedSql['from']] {
    const fromIdx = this.toks.indexOf('from', start);
    if (fromIdx < 0) this.fail('"from" not found');
    let idx = fromIdx + 1;
    const tableUnits: ParsedSql['from']['table_units'] = [];
    const conds: Conds = [];
    while (idx < this.toks.length) {
      let isBlock = false;
      if (this.toks[idx] === '(') {
        isBlock = true;
        idx++;
      }
      if (this.toks[idx] === 'select') {
        const [next, sub] = this.parseSql(idx);
        idx = next;
        tableUnits.push(['sql', sub]);
      } else {
        if (this.toks[idx] === 'join') idx++;
        const [next, table] = this.parseTableUnit(idx);
        idx = next;
        tableUnits.push(['table_unit', table]);
      }
      if (this.toks[idx] === 'on') {
        const [next, these] = this.parseCondition(idx + 1);
        idx = next;
        if (conds.length > 0) conds.push('and');
        conds.push(...these);
      }
      if (isBlock) {
        this.expect(idx, ')');
        idx++;
      }
      if (idx < this.toks.length && this.isEndOfClause(this.toks[idx])) break;
    }
    return [idx, { table_units: tableUnits, conds }];
  }

  parseOptionalConds(idx: number, keyword: string): [number, Conds] {
    if (this.toks[idx] !== keyword) return [idx, []];
    return this.parseCondition(idx + 1);
  }

  parseGroupBy(start: number): [number, ColUnit[]] {
    let idx = start;
    const units: ColUnit[] = [];
    if (this.toks[idx] !== 'group') return [idx, units];
    this.expect(idx + 1, 'by');
    idx += 2;
    while (idx < this.toks.length && !this.isEndOfClause(this.toks[idx])) {
      const [next, unit] = this.parseColUnit(idx);
      idx = next;
      units.push(unit);
      if (this.toks[idx] === ',') idx++;
      else break;
    }
    return [idx, units];
  }

  parseOrderBy(start: number): [number, ParsedSql['orderBy']] {
    let idx = start;
    if (this.toks[idx] !== 'order') return [idx, []];
    this.expect(idx + 1, 'by');
    idx += 2;
    const units: ValUnit[] = [];
    let orderType = 'asc';
    while (idx < this.toks.length && !this.isEndOfClause(this.toks[idx])) {
      const [next, unit] = this.parseValUnit(idx);
      idx = next;
      units.push(unit);
      if (ORDER_OPS.has(this.toks[idx])) {
        orderType = this.toks[idx];
        idx++;
      }
      if (this.toks[idx] === ',') idx++;
      else break;
    }
    return [idx, [orderType, units]];
  }

  private skipSemicolons(idx: number): number {
    while (this.toks[idx] === ';') idx++;
    return idx;
  }

  parseSql(start: number): [number, ParsedSql] {
    let idx = start;
    let isBlock = false;
    if (this.toks[idx] === '(') {
      isBlock = true;
      idx++;
    }
    const [fromEnd, from] = this.parseFrom(start);
    const select = this.parseSelect(idx);
    idx = fromEnd;
    let where: Conds;
    let groupBy: ColUnit[];
    let having: Conds;
    let orderBy: ParsedSql['orderBy'];
    [idx, where] = this.parseOptionalConds(idx, 'where');
    [idx, groupBy] = this.parseGroupBy(idx);
    [idx, having] = this.parseOptionalConds(idx, 'having');
    [idx, orderBy] = this.parseOrderBy(idx);
    let limit: number | null = null;
    if (this.toks[idx] === 'limit') {
      idx += 2;
      limit = 1; // the official parser never keeps the number (tokens are strings, its int check always fails)
    }
    idx = this.skipSemicolons(idx);
    if (isBlock) {
      this.expect(idx, ')');
      idx++;
    }
    idx = this.skipSemicolons(idx);
    const sql: ParsedSql = { select, from, where, groupBy, having, orderBy, limit, intersect: null, union: null, except: null };
    const op = this.toks[idx] as (typeof SQL_OPS)[number];
    if (SQL_OPS.includes(op)) {
      const [next, sub] = this.parseSql(idx + 1);
      idx = next;
      sql[op] = sub;
    }
    return [idx, sql];
  }
}

/** Python's float() on a token: decimal or scientific numbers, inf and nan. */
function isPythonFloat(tok: string): boolean {
  return /^[+-]?((\d+(_\d+)*)?\.?\d+(_\d+)*([eE][+-]?\d+)?|\d+\.|inf(inity)?|nan)$/i.test(tok);
}

/** Parses a query the way Spider's process_sql.py `get_sql` does; throws SpiderParseError where it would fail. */
export function parseSpiderSql(sql: string): ParsedSql {
  const toks = tokenizeSpiderSql(sql);
  return new Parser(toks, sql).parseSql(0)[1];
}
