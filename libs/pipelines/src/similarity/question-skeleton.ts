/** The part of a schema skeleton extraction reads: table and column names. */
export interface SchemaNames { tables: ReadonlyArray<{ name: string; columns: ReadonlyArray<{ name: string }> }> }

/** Placeholder for a masked schema mention or value, as in Guo et al.'s de-semanticised question skeletons. */
export const SKELETON_MASK = '_';

/** Words that carry the question's structure even when a table or column happens to share the name. */
const STRUCTURE_WORDS = new Set([
  'a', 'an', 'the', 'of', 'in', 'on', 'at', 'to', 'for', 'by', 'with', 'from', 'and', 'or', 'not', 'no', 'is', 'are',
  'was', 'were', 'be', 'been', 'do', 'does', 'did', 'has', 'have', 'had', 'what', 'which', 'who', 'whom', 'whose',
  'when', 'where', 'why', 'how', 'many', 'much', 'all', 'each', 'every', 'any', 'some', 'that', 'this', 'these',
  'those', 'than', 'more', 'most', 'less', 'least', 'fewer', 'greater', 'larger', 'smaller', 'higher', 'lower',
  'highest', 'lowest', 'largest', 'smallest', 'biggest', 'top', 'first', 'last', 'number', 'count', 'total', 'sum',
  'average', 'mean', 'maximum', 'minimum', 'max', 'min', 'list', 'show', 'give', 'find', 'return', 'name', 'names',
  'order', 'sorted', 'sort', 'ascending', 'descending', 'distinct', 'different', 'unique', 'between', 'both', 'either',
  'only', 'also', 'there', 'their', 'its', 'it', 'they', 'them', 'as', 'per', 'percentage', 'ratio', 'times', 'out',
  'among', 'over', 'under', 'above', 'below', 'after', 'before', 'during', 'same', 'other', 'except', 'without',
  'please', 'tell', 'me', 'can', 'you', 'i', 'we', 'if', 'then', 'into', 'within', 'less', 'equal', 'equals',
]);

const WORD = /[A-Za-z][A-Za-z'-]*|\d+(?:[.,]\d+)*%?|"[^"]*"|'[^']*'|[^\sA-Za-z\d]/g;

function singular(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('es') && /(s|x|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** Words of schema names: `singer_in_concert` -> singer, in, concert; `CustomerID` -> customer, id. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z\d]+/)
    .map((w) => singular(w.toLowerCase()))
    .filter((w) => w.length > 1);
}

/** The schema vocabulary: singular lower-cased words of every table and column name. */
export function schemaVocabulary(schema: SchemaNames): Set<string> {
  const words = new Set<string>();
  for (const table of schema.tables) {
    for (const w of nameWords(table.name)) words.add(w);
    for (const column of table.columns) for (const w of nameWords(column.name)) words.add(w);
  }
  return words;
}

/**
 * A question skeleton (DR-Chain 3.1.2 after Guo et al. 2023; also UCS-SQL's DAIL selection's masked question):
 * schema mentions and values are replaced by `_`,
 * the structure words are kept, and runs of masks collapse into one.
 * - values: quoted text, numbers, and capitalised words that do not start the sentence (proper names);
 * - schema mentions: words whose singular form is a word of a table or column name, unless a structure word.
 */
export function questionSkeleton(question: string, schema: SchemaNames): string {
  const vocabulary = schemaVocabulary(schema);
  const tokens = question.trim().match(WORD) ?? [];
  const out: string[] = [];
  let sentenceStart = true;
  for (const token of tokens) {
    const lower = token.toLowerCase();
    const isWord = /^[A-Za-z]/.test(token);
    let masked: boolean;
    if (/^["'\d]/.test(token)) masked = true;
    else if (!isWord) masked = false;
    else if (STRUCTURE_WORDS.has(lower)) masked = false;
    else if (!sentenceStart && /^[A-Z]/.test(token)) masked = true;
    else masked = vocabulary.has(singular(lower)) || lower.split('-').some((part) => vocabulary.has(singular(part)));
    const piece = masked ? SKELETON_MASK : isWord ? lower : token;
    if (!(masked && out[out.length - 1] === SKELETON_MASK)) out.push(piece);
    sentenceStart = /^[.?!]$/.test(token);
  }
  return out.join(' ').replace(/ ([?.,!;:])/g, '$1');
}
