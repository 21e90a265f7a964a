import { lexSql } from '@sqlsweep/sql-sandbox';
import type { GeneratedSql } from './stages/common';

export type ParsedSql = { ok: true; sql: string } | { ok: false; error: string };

/** How a stage asked for its query, so the parser can pick the right block when the answer holds several. */
export interface SqlAnswerOptions {
  /**
   * 'last' (default): the last code block holding a query, as models revise a draft in a later block.
   * 'labelled': the last block (or unfenced query) introduced by `label` — e.g. RB-SQL's organized generation prints
   * sub-questions, a skeleton and values before the line "SQL:" — falling back to 'last' when no block is labelled.
   */
  prefer?: 'last' | 'labelled';
  /** The label line the prompt's examples put before the final query ('SQL' matches "SQL:", "**SQL:**", "4. Final SQL query:"). */
  label?: string;
  /**
   * 'query' (default) passes over skeleton blocks (`[table_name]` placeholders, `_` masks) when a real query is there;
   * 'skeleton' is for stages that ask for a skeleton and prefers those blocks.
   */
  expect?: 'query' | 'skeleton';
}

/**
 * The one final-SQL parser every method's generation, correction and revision stage calls: a parse failure is a
 * recorded `parseError` with `sql: null`, never an exception, so every method treats it the same way.
 */
export function parseFinalSql(raw: string, options: SqlAnswerOptions = {}): GeneratedSql {
  const parsed = parseSqlAnswer(raw, options);
  return parsed.ok ? { sql: parsed.sql } : { sql: null, parseError: parsed.error };
}

interface Candidate {
  readonly sql: string;
  /** The line that introduced it ("SQL:", "**Final query**"), normalised; '' when none. */
  readonly label: string;
  readonly skeleton: boolean;
}

/**
 * Extracts one SQL query from an LLM answer. Fenced blocks with any language tag (or none, or an unclosed fence)
 * come first; without one that holds a query, the query is read from the prose, ending at the statement's `;`, at
 * the explanation after it, or at the end. Comments are removed (outside string literals) before newlines are
 * collapsed, and of several statements the first is kept.
 */
export function parseSqlAnswer(raw: string, options: SqlAnswerOptions = {}): ParsedSql {
  const text = beforeNextExample(raw.replace(/\r\n?/g, '\n'));
  const blocks = codeBlocks(text);
  let candidates = blocks.flatMap((b) => {
    const sql = blockQuery(b.content);
    return sql === undefined ? [] : [{ sql, label: b.label, skeleton: isSkeleton(sql) }];
  });
  const fenced = candidates.length > 0;
  if (!fenced) candidates = proseQueries(withoutForeignBlocks(text));
  if (candidates.length === 0) {
    if (blocks.some((b) => /^\s*;?\s*$/.test(stripComments(b.content)))) return { ok: false, error: 'the SQL block is empty' };
    return { ok: false, error: 'no SQL query found in the answer' };
  }
  const chosen = choose(candidates, options, fenced);
  if (!chosen.sql) return { ok: false, error: 'the SQL block is empty' };
  return { ok: true, sql: chosen.sql };
}

/** Small models go on to invent the prompt's next example ("Question: ..."): what follows the answer is cut. */
function beforeNextExample(text: string): string {
  const firstQuery = text.search(/```|\bSELECT\b|\bselect\b|\bWITH\b/);
  if (firstQuery < 0) return text;
  const nextExample = /^[ \t]*(?:#{1,4}[ \t]*)?(?:\*\*)?(?:Example[ \t]*\d+\b|Question[ \t]*\d*[ \t]*:)/gim;
  nextExample.lastIndex = firstQuery;
  const m = nextExample.exec(text);
  return m ? text.slice(0, m.index) : text;
}

function choose(all: Candidate[], options: SqlAnswerOptions, fenced: boolean): Candidate {
  const wantSkeleton = options.expect === 'skeleton';
  const kind = all.filter((c) => c.skeleton === wantSkeleton);
  const pool = kind.length > 0 ? kind : all;
  if (options.prefer === 'labelled' && options.label) {
    const label = options.label.toLowerCase();
    const labelled = pool.filter((c) => labelMatches(c.label, label));
    if (labelled.length > 0) return labelled[labelled.length - 1];
  }
  // Fenced drafts are revised in later blocks; unfenced statements after the first are extras.
  return fenced ? pool[pool.length - 1] : pool[0];
}

function labelMatches(line: string, label: string): boolean {
  const words = line.replace(/\b(?:final|the|corrected|complete|filled)\b/g, ' ').replace(/\b(?:query|statement)\b/g, ' ').trim().split(/\s+/);
  return words.join(' ') === label;
}

// ---- code blocks

interface Block { readonly content: string; readonly label: string }

/** Languages whose blocks never hold the answer query, even if a SELECT appears in them. */
const NOT_SQL = new Set(['json', 'python', 'py', 'javascript', 'js', 'typescript', 'ts', 'bash', 'sh', 'shell', 'console', 'java', 'csv', 'markdown', 'md', 'yaml', 'xml', 'html']);

function codeBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let from = 0;
  let previousEnd = 0;
  for (;;) {
    const open = text.indexOf('```', from);
    if (open < 0) break;
    const tag = /^`{3,}[ \t]*([\w+#.-]*)/.exec(text.slice(open))!;
    const afterTag = open + tag[0].length;
    const lineEnd = text.indexOf('\n', afterTag);
    const restOfLine = text.slice(afterTag, lineEnd < 0 ? undefined : lineEnd);
    // "```sql SELECT ...```" on one line: the content starts on the fence's line.
    const contentStart = restOfLine.trim() === '' ? (lineEnd < 0 ? text.length : lineEnd + 1) : afterTag;
    let lang = tag[1].toLowerCase();
    if (restOfLine.trim() !== '' && isQueryKeyword(tag[1])) lang = '';
    const close = text.indexOf('```', contentStart);
    const end = close < 0 ? text.length : close;
    const content = lang === '' && restOfLine.trim() !== '' ? text.slice(open + 3, end) : text.slice(contentStart, end);
    if (!NOT_SQL.has(lang)) blocks.push({ content, label: labelBefore(text.slice(previousEnd, open)) });
    previousEnd = close < 0 ? text.length : close + 3;
    from = previousEnd;
    if (close < 0) break;
  }
  return blocks;
}

/** The answer with the blocks of other languages (a JSON object, Python) blanked, so prose search skips their SELECTs. */
function withoutForeignBlocks(text: string): string {
  return text.replace(/```[ \t]*([\w+#.-]+)[^\n]*\n[\s\S]*?(?:```|$)/g, (block, lang: string) => (NOT_SQL.has(lang.toLowerCase()) ? '\n' : block));
}

/** The last non-empty line before a block, as a label: markdown, numbering and the colon removed, lower case. */
function labelBefore(prose: string): string {
  const lines = prose.split('\n').map((l) => l.trim()).filter(Boolean);
  return normaliseLabel(lines[lines.length - 1] ?? '');
}

function normaliseLabel(line: string): string {
  return line.replace(/[*_#>`]/g, '').replace(/^\s*(?:step\s*)?\d+[.):]\s*/i, '').replace(/[:.\s]+$/, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * The query a block holds: read from its first statement keyword (after an optional "SQLQuery:" label), or, when the
 * block opens with prose, the first query in that prose.
 */
function blockQuery(content: string): string | undefined {
  const body = stripComments(content);
  const prefix = /^\s*(?:[A-Za-z][\w ]{0,20}:\s*)?(?=(?:\(\s*)*(?:SELECT|WITH|VALUES)\b)/i.exec(body);
  if (prefix) return firstStatement(body.slice(prefix[0].length), 'block');
  return proseQueries(content)[0]?.sql;
}

// ---- queries in prose

const SQL_WORDS = new Set(`select from where join inner left right full outer cross natural on using and or not group order by having
  limit offset union intersect except all distinct as case when then else end in is null like glob between exists with asc desc
  cast count sum avg min max iif coalesce ifnull nullif substr substring strftime round abs length lower upper trim replace instr
  date datetime julianday total values over partition rank row_number dense_rank recursive collate escape`.split(/\s+/));

function isQueryKeyword(word: string): boolean {
  return /^(select|with|values)$/i.test(word);
}

/** A word in the case SQL writes keywords (SELECT or select), not a capitalised English word (Select, In, As). */
function isSqlWord(word: string): boolean {
  return SQL_WORDS.has(word.toLowerCase()) && (word === word.toUpperCase() || word === word.toLowerCase());
}

/** Every place in the prose where a query starts, each read to its end; keyword case and shape rule out English "select"/"with". */
function proseQueries(text: string): Candidate[] {
  const found: Candidate[] = [];
  let consumedTo = 0;
  for (const m of text.matchAll(/\b(SELECT|WITH)\b/gi)) {
    const at = m.index!;
    if (at < consumedTo || !isSqlWord(m[1]) || !looksLikeQueryStart(text.slice(at))) continue;
    const sql = firstStatement(text.slice(at), 'prose', text[at - 1] === '`');
    if (!sql) continue;
    found.push({ sql, label: proseLabel(text, at), skeleton: isSkeleton(sql) });
    consumedTo = at + sql.length;
  }
  return found;
}

function looksLikeQueryStart(rest: string): boolean {
  if (/^with\b/i.test(rest)) return /^with\s+(?:recursive\s+)?[\w"`[\]]+\s*(?:\([^)]*\)\s*)?as\s*(?:not\s+)?(?:materialized\s*)?\(/i.test(rest);
  const words = /^select\s+(?:distinct\s+)?([^\s,(]+)\s*(\S*)/i.exec(rest);
  if (!words) return false;
  const english = /^(?:the|a|an|this|these|those|which|each|every|only|one|some|our|your|their|it|them|rows?|records?|columns?|data)$/i;
  // "SELECT a FROM t" is a query, "select the right rows" is English.
  return !(english.test(words[1]) && !/^(?:from|as|,.*|[-+*/=<>|].*)?$/i.test(words[2] ?? ''));
}

/** The label of a prose query: text before it on its line ("SQL:"), or the previous line when that ends in a colon. */
function proseLabel(text: string, at: number): string {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const before = text.slice(lineStart, at);
  if (before.trim()) return normaliseLabel(before);
  const previous = text.slice(0, lineStart).split('\n').map((l) => l.trim()).filter(Boolean).pop() ?? '';
  return /:\**\s*$/.test(previous) ? normaliseLabel(previous) : '';
}

/** A line of prose after the query ends it: bullets, "Note:"-style labels, English sentences. */
function isProseLine(line: string): boolean {
  const t = line.trim();
  if (/^(?:[-•>#]|\*\*|\*\s+[A-Za-z]|\d+[.)]\s)/.test(t)) return !/^-\s*\d/.test(t);
  if (/^[A-Za-z][\w ]{0,30}:(?:\s|$)/.test(t)) return true;
  if (/^[A-Z][a-z']+,?(?:\s+[a-z][a-z',]*){2,}/.test(t)) return true;
  return false;
}

/** A line that continues a query: it starts with an SQL word or SQL punctuation, or an identifier followed by SQL. */
function continuesQuery(line: string): boolean {
  const t = line.trim();
  if (t.startsWith('```') || isProseLine(t)) return false;
  if (/^[(),*'"`[\]=<>!|+/%-]/.test(t) || /^\d/.test(t)) return true;
  const first = /^[A-Za-z_$][\w$]*/.exec(t)?.[0];
  if (!first) return false;
  if (isSqlWord(first)) return true;
  return /^[A-Za-z_$][\w$]*\s*(?:[.,(=<>!+\-*/|]|$)/.test(t) || /^[A-Za-z_$][\w$]*\s+(?:AS|as|IN|in|IS|is|AND|and|OR|or|LIKE|like|BETWEEN|between|NOT|not)\b/.test(t);
}

// ---- one statement, read with string literals, quoted names and comments in mind

/** Removes `--` and block comments outside string literals and quoted names; newlines are kept. */
export function stripComments(sql: string): string {
  let out = '';
  let dropBlanks = false;
  for (const { kind, text } of lexSql(sql)) {
    const blockComment = kind === 'comment' && text.startsWith('/*');
    if (blockComment) {
      // One space where the comment was: "a/* x */b" stays two words, "a /* x */ b" gets no double space.
      dropBlanks = /\s$/.test(out);
      if (!dropBlanks) out += ' ';
      continue;
    }
    if (kind === 'comment') out += text.endsWith('\n') ? '\n' : '';
    else out += dropBlanks && kind === 'space' ? text.replace(/^[ \t]+/, '') : text;
    dropBlanks = false;
  }
  return out;
}

/**
 * The first statement of `text` (which starts with it), comments removed and newlines collapsed outside literals.
 * In prose it also ends at a blank line or a line of explanation, at a sentence's full stop, and — when the query
 * opened after a backtick — at the closing backtick.
 */
function firstStatement(text: string, mode: 'block' | 'prose', inBackticks = false): string {
  const body = stripComments(text);
  let end = body.length;
  let tokens = lexSql(body);
  let offset = 0;
  scan: for (let k = 0; k < tokens.length; k += 1) {
    const { kind, text: tokenText } = tokens[k];
    const at = offset;
    offset += tokenText.length;
    if (kind === 'string' || kind === 'quoted') {
      if (tokenText[0] === '`' && inBackticks) { end = at; break; }
      // In prose a `[` is a quoted name only as `[name]`; otherwise it is text and the scan goes on inside it.
      if (tokenText[0] === '[' && mode === 'prose' && !/^\[\w+\]/.test(body.slice(at))) {
        tokens = lexSql(body.slice(at + 1));
        k = -1;
        offset = at + 1;
      }
      continue;
    }
    for (let j = 0; j < tokenText.length; j += 1) {
      const i = at + j;
      const c = body[i];
      if (c === ';') { end = i; break scan; }
      if (mode === 'prose' && c === '.' && (i + 1 === body.length || /\s/.test(body[i + 1]))) { end = i; break scan; }
      if (mode === 'prose' && c === '\n' && !proseContinues(body.slice(i + 1))) { end = i; break scan; }
    }
  }
  return collapse(body.slice(0, end));
}

/** After a newline inside a prose query: does the query go on? A blank line ends it unless a clause keyword follows. */
function proseContinues(rest: string): boolean {
  const lines = rest.split('\n');
  if (lines[0].trim() !== '') return continuesQuery(lines[0]);
  const next = lines.find((l) => l.trim() !== '');
  return next !== undefined && /^\s*(?:FROM|WHERE|JOIN|INNER|LEFT|GROUP|ORDER|HAVING|LIMIT|UNION|INTERSECT|EXCEPT|AND|OR|ON)\b/.test(next);
}

/** Trims and collapses every run of whitespace holding a newline into one space, outside literals (`[..]` names included). */
function collapse(sql: string): string {
  let out = '';
  let plain = '';
  const flush = () => { out += plain.replace(/\s+/g, (ws) => (ws.includes('\n') ? ' ' : ws)); plain = ''; };
  for (const { kind, text } of lexSql(sql)) {
    if ((kind === 'string' || kind === 'quoted') && text[0] !== '[') { flush(); out += text; } else plain += text;
  }
  flush();
  return out.trim();
}

/** RB-SQL's `[table_name]`/`[column_name]`/`[value]` placeholders, or UCS-SQL's `_` masks (two or more). */
function isSkeleton(sql: string): boolean {
  return /\[(?:table|column|col|value|val)(?:_?name)?s?\d*\]/i.test(sql) || (sql.match(/(?<![\w'"])_(?![\w'"])/g)?.length ?? 0) >= 2;
}
