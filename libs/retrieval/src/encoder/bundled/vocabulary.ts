/**
 * Vocabulary of the bundled encoder's WordPiece tokenizer. Special tokens follow BERT's names so that the ColBERT
 * conventions ([unused0] query marker, [unused1] document marker, [MASK] query padding) apply unchanged.
 * Pieces are letter uni/bi/trigrams (word-initial and `##` continuation) plus digits and ASCII punctuation: greedy
 * longest-match then cuts every lower-case ASCII word into trigram pieces, consistently across queries and documents.
 */
export const SPECIAL_TOKENS = ['[PAD]', '[unused0]', '[unused1]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
export const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

function letterNgrams(length: number): string[] {
  let grams = [''];
  for (let n = 0; n < length; n++) grams = grams.flatMap((prefix) => [...LETTERS].map((c) => prefix + c));
  return grams;
}

export function buildBundledVocabulary(): string[] {
  const pieces = [...LETTERS, ...DIGITS, ...letterNgrams(2), ...letterNgrams(3)];
  const vocabulary: string[] = [...SPECIAL_TOKENS, ...PUNCTUATION];
  for (const piece of pieces) vocabulary.push(piece);
  for (const piece of pieces) vocabulary.push(`##${piece}`);
  return vocabulary;
}

/**
 * Question words removed by the tokenizer's normaliser (whole words only) so they never add MaxSim noise.
 * SQL keywords (and, or, not, in, is, by, from, where, ...) are kept: the same encoder scores SQL skeletons.
 */
export const STOPWORDS = [
  'a', 'an', 'the', 'of', 'to', 'for', 'with', 'at', 'was', 'were', 'be', 'been', 'being', 'are', 'do', 'does', 'did',
  'has', 'have', 'had', 'what', 'which', 'who', 'whom', 'whose', 'how', 'many', 'much', 'that', 'this', 'these',
  'those', 'their', 'there', 'its', 'it', 'they', 'them', 'he', 'she', 'his', 'her', 'me', 'my', 'i', 'we', 'our',
  'you', 'your', 'please', 'give', 'show', 'list', 'find', 'tell', 'display', 'each', 'every', 'any', 'than', 'also',
  'can', 'could', 'would', 'should', 'will', 'shall', 'may',
] as const;
