import type { Rng } from '../rng';
import type { MethodProtocol } from './protocol';

/**
 * UCS-SQL's stage answers, derived from the target's gold SQL (or its corrupted copy when the simulated model errs):
 * question terms, content-pipe identifiers, structure-pipe functions, SS-QE shot choice and skeleton filling.
 */

const STOPWORDS = new Set('the a an of in on for to and or with by from is are was were what which who whom whose how many much list give show name all each that this those these there their its it as at be do does did than please find tell me'.split(' '));

const STRUCTURE_CUES = [
  'highest', 'lowest', 'most', 'least', 'best', 'worst', 'largest', 'smallest', 'biggest', 'youngest', 'oldest', 'latest', 'earliest',
  'top', 'maximum', 'minimum', 'average', 'total', 'sum', 'how many', 'number of', 'count', 'each', 'per', 'more than',
  'less than', 'at least', 'at most', 'before', 'after', 'between', 'percentage', 'ratio', 'different', 'distinct',
  'not', 'without', 'both', 'either', 'order', 'sorted', 'ranked', 'first', 'last',
];

function dropOne<T>(list: T[], rng: Rng, correct: boolean): T[] {
  if (correct || list.length < 2) return list;
  const out = [...list];
  out.splice(Math.floor(rng() * out.length), 1);
  return out;
}

const mentions = (sql: string, name: string): boolean =>
  new RegExp(`(^|[^A-Za-z0-9_])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9_])`, 'i').test(sql);

function questionTerms(question: string, sql: string): { content: string[]; structure: string[] } {
  const q = question.toLowerCase();
  const words = [...new Set(q.match(/[a-z0-9_]+/g) ?? [])].filter((w) => w.length > 2 && !STOPWORDS.has(w));
  const content = words.filter((w) => sql.toLowerCase().includes(w.replace(/s$/, '')));
  const literals = [...sql.matchAll(/'((?:[^']|'')+)'/g)].map((m) => m[1]!.replace(/''/g, "'")).filter((v) => q.includes(v.toLowerCase()));
  const structure = STRUCTURE_CUES.filter((cue) => new RegExp(`\\b${cue}\\b`).test(q));
  return { content: [...new Set([...content, ...literals])], structure };
}

const FUNCTION_PATTERNS: Array<[string, RegExp]> = [
  ['WHERE', /\bWHERE\b/i], ['JOIN', /\bJOIN\b/i], ['GROUP BY', /\bGROUP\s+BY\b/i], ['HAVING', /\bHAVING\b/i],
  ['ORDER BY', /\bORDER\s+BY\b/i], ['ASC', /\bASC\b/i], ['DESC', /\bDESC\b/i], ['LIMIT', /\bLIMIT\b/i],
  ['DISTINCT', /\bDISTINCT\b/i], ['COUNT', /\bCOUNT\s*\(/i], ['SUM', /\bSUM\s*\(/i], ['AVG', /\bAVG\s*\(/i],
  ['MIN', /\bMIN\s*\(/i], ['MAX', /\bMAX\s*\(/i], ['LIKE', /\bLIKE\b/i], ['BETWEEN', /\bBETWEEN\b/i],
  ['IN', /\bIN\s*\(/i], ['NOT', /\bNOT\b/i], ['IS NULL', /\bIS\s+(?:NOT\s+)?NULL\b/i], ['CASE', /\bCASE\b/i],
  ['IIF', /\bIIF\s*\(/i], ['CAST', /\bCAST\s*\(/i], ['SUBSTR', /\bSUBSTR\s*\(/i], ['STRFTIME', /\bSTRFTIME\s*\(/i],
  ['ROUND', /\bROUND\s*\(/i], ['LENGTH', /\bLENGTH\s*\(/i], ['ABS', /\bABS\s*\(/i], ['UNION', /\bUNION\b/i],
  ['INTERSECT', /\bINTERSECT\b/i], ['EXCEPT', /\bEXCEPT\b/i], ['NESTED', /\(\s*SELECT\b/i], ['DIVISION', /[^/*]\/[^/*]/],
];

function schemaIdentifiers(prompt: string): Array<{ table: string; column: string }> {
  return [...prompt.matchAll(/^- `([^`]+)`\.`([^`]+)`/gm)].map((m) => ({ table: m[1]!, column: m[2]! }));
}

/** The declared foreign keys a prompt lists, as `- \`a\`.\`x\` = \`b\`.\`y\`` lines. */
function foreignKeyLines(prompt: string): Array<[{ table: string; column: string }, { table: string; column: string }]> {
  return [...prompt.matchAll(/^- `([^`]+)`\.`([^`]+)` = `([^`]+)`\.`([^`]+)`/gm)].map((m) => [{ table: m[1]!, column: m[2]! }, { table: m[3]!, column: m[4]! }]);
}

/**
 * MAC-SQL selector answer: the tables the SQL uses, whole when they have at most 6 columns, else the columns the SQL
 * mentions; every other table dropped.
 */
function selection(prompt: string, sql: string): Record<string, 'keep_all' | 'drop_all' | string[]> {
  const byTable = new Map<string, string[]>();
  for (const c of schemaIdentifiers(prompt.split(/^### Foreign keys/m)[0]!)) byTable.set(c.table, [...(byTable.get(c.table) ?? []), c.column]);
  const out: Record<string, 'keep_all' | 'drop_all' | string[]> = {};
  for (const [table, columns] of byTable) {
    if (!mentions(sql, table)) out[table] = 'drop_all';
    else out[table] = columns.length <= 6 ? 'keep_all' : columns.filter((c) => mentions(sql, c));
  }
  return out;
}

function wordsOf(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !STOPWORDS.has(w)));
}

function closestIds(prompt: string, question: string): string[] {
  const k = Number(/select (\d+) questions/i.exec(prompt)?.[1] ?? 1);
  const block = /source questions:\n([\s\S]*?)\n\s*target question:/i.exec(prompt)?.[1] ?? '';
  const target = wordsOf(question);
  const scored = [...block.matchAll(/^(\S+): (.+)$/gm)].map((m, order) => {
    const w = wordsOf(m[2]!);
    const shared = [...w].filter((x) => target.has(x)).length;
    return { id: m[1]!, order, score: shared / Math.max(1, new Set([...w, ...target]).size) };
  });
  return scored.sort((a, b) => b.score - a.score || a.order - b.order).slice(0, k).map((s) => s.id);
}

export const ucsSqlProtocols: MethodProtocol[] = [
  {
    name: 'ucs-sql.terms',
    detect: (t) => t.includes('content terms') && t.includes('structure terms') && t.includes('{"content"'),
    render: ({ item, sql, rng, correct }) => {
      const terms = questionTerms(item.question, sql);
      return JSON.stringify({ content: dropOne(terms.content, rng, correct), structure: terms.structure });
    },
  },
  {
    name: 'ucs-sql.identifiers',
    detect: (t) => t.includes('content pipe') && t.includes('schema identifiers'),
    render: ({ sql, rng, correct, prompt }) => {
      const used = schemaIdentifiers(prompt).filter((c) => mentions(sql, c.table) && mentions(sql, c.column));
      return JSON.stringify(dropOne(used, rng, correct).map((c) => `${c.table}.${c.column}`));
    },
  },
  {
    name: 'ucs-sql.foreign-keys',
    detect: (t) => t.includes('foreign-key step of a text-to-sql content pipe'),
    render: ({ sql, prompt }) => {
      const used = foreignKeyLines(prompt).filter(([a, b]) => [a, b].every((c) => mentions(sql, c.table) && mentions(sql, c.column)));
      return JSON.stringify([...new Set(used.flat().map((c) => `${c.table}.${c.column}`))]);
    },
  },
  {
    name: 'ucs-sql.select-schema',
    detect: (t) => t.includes('schema selector') && t.includes('"keep_all"'),
    render: ({ sql, prompt }) => JSON.stringify(selection(prompt, sql)),
  },
  {
    name: 'ucs-sql.functions',
    detect: (t) => t.includes('structure pipe') && t.includes('candidate sql functions'),
    render: ({ sql }) => JSON.stringify(FUNCTION_PATTERNS.filter(([, re]) => re.test(sql)).map(([name]) => name)),
  },
  {
    name: 'ucs-sql.select-shots',
    detect: (t) => t.includes('closest in question phrasing'),
    render: ({ item, prompt }) => JSON.stringify(closestIds(prompt, item.question)),
  },
  {
    name: 'ucs-sql.fill',
    answersSql: true,
    detect: (t) => t.includes('fill the sql skeleton: replace each _'),
    render: ({ sql }) => `\`\`\`sql\n${sql}\n\`\`\``,
  },
];
