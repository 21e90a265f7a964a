import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tiktoken } from 'js-tiktoken/lite';
import { countTokens, decodeTokens, encodeTokens, loadRanks } from './tokens';

const minibench = join(__dirname, '..', '..', '..', 'data', 'minibench');

/** Real prompt-like texts: every minibench source file (schemas, questions, SQL), plus awkward whitespace and specials. */
function texts(): string[] {
  const files = readdirSync(minibench, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile() && /\.(sql|json|ya?ml|md)$/.test(f.name))
    .map((f) => readFileSync(join(f.parentPath, f.name), 'utf8'));
  return [
    ...files,
    'CREATE TABLE singer (\n  singer_id INTEGER PRIMARY KEY,\n    name TEXT   \n)\n\n\n  SELECT  *  FROM singer;  ',
    'Ünïcödé names: Zürich, 東京, Ελλάδα — 3.14159 and 1,000,000 rows\t\ttabs\r\nCRLF',
    'before <|endoftext|> after<|endofprompt|>and text <|not special|>',
    '',
  ];
}

/**
 * Fragments that meet at line starts in every way the pre-tokenizer patterns treat specially: punctuation before a
 * newline and a slash after it, whitespace-only lines, CRLF, lone CR, digit runs split by a newline, contractions,
 * marks and letters of other scripts, emoji (surrogate pairs), Unicode spaces, special tokens.
 */
const FRAGMENTS = [
  'CREATE TABLE singer (', '  singer_id INTEGER,', '  name TEXT', '  PRIMARY KEY (singer_id)', ');', 'SELECT count(*) FROM t;',
  '/', '//', '/* c */', '-- note', ';', '.', '...', ',', ')', '("x")', "'s", "'ll", "don't", 'Ünïcödé', '東京', 'Ελλάδα', 'e\u0301',
  '😀', '👍🏽x', '123', '4567', '1,000', '3.14', ' ', '  ', '\t', '\u00a0', '\u3000', '\u2028', '\n', '\n\n', '\r\n', '\r', '\n \n',
  'word', 'Word', 'WORD', 'camelCase', 'x', '<|endoftext|>', '<|endofprompt|>', '<|fim_prefix|>', '```sql', '```', '#', '-', '$1',
];

/** A deterministic pseudo-random generator (mulberry32), so a failing text can be found again. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomTexts(count: number, seed: number): string[] {
  const random = prng(seed);
  const pick = () => FRAGMENTS[Math.floor(random() * FRAGMENTS.length)];
  return Array.from({ length: count }, () => {
    const parts: string[] = [];
    const n = 1 + Math.floor(random() * 40);
    for (let i = 0; i < n; i++) parts.push(random() < 0.3 ? '\n' : '', pick());
    return parts.join('');
  });
}

describe('countTokens', () => {
  it.each(['o200k_base', 'cl100k_base'] as const)('counts exactly what %s encodes, piece cache or not', (name) => {
    const reference = new Tiktoken(loadRanks(name));
    const all = texts();
    expect(all.length).toBeGreaterThan(10);
    for (const text of [...all, ...all]) expect(countTokens(text, name)).toBe(reference.encode(text, 'all').length);
  });

  it.each(['o200k_base', 'cl100k_base'] as const)('encodes exactly what %s encodes, from remembered segments too', (name) => {
    const reference = new Tiktoken(loadRanks(name));
    const all = [...texts(), ...randomTexts(2000, 29)];
    const wrong = [...all, ...all].filter((text) => JSON.stringify(encodeTokens(text, name)) !== JSON.stringify(reference.encode(text, 'all')));
    expect(wrong.map((text) => JSON.stringify(text)).slice(0, 5)).toEqual([]);
  });

  it.each(['o200k_base', 'cl100k_base'] as const)('counts exactly what %s encodes for texts cut at line starts every which way', (name) => {
    const reference = new Tiktoken(loadRanks(name));
    // Counted twice, the second time from remembered segments; the texts share lines in different contexts.
    const all = randomTexts(4000, 17);
    const wrong = [...all, ...all].filter((text) => countTokens(text, name) !== reference.encode(text, 'all').length);
    expect(wrong.map((text) => JSON.stringify(text)).slice(0, 5)).toEqual([]);
  });

  it('gives a line its count in context, not the count it had elsewhere', () => {
    const reference = new Tiktoken(loadRanks('o200k_base'));
    // The same segment "x;\n" ends a punctuation piece that takes the slash after it in the second text.
    for (const text of ['x;\nabc', 'x;\n/abc', 'x;\n  \nabc', 'x;\n  abc', 'a\n\r\nb', 'a\n 12\n345', 'a\n']) {
      expect([text, countTokens(text)]).toEqual([text, reference.encode(text, 'all').length]);
    }
  });

  it.each(['o200k_base', 'cl100k_base'] as const)('decodes as %s decodes, cut mid-character too', (name) => {
    const reference = new Tiktoken(loadRanks(name));
    for (const text of [...texts(), ...randomTexts(500, 41)]) {
      const tokens = reference.encode(text, 'all');
      expect(decodeTokens(tokens, name)).toBe(text);
      const cut = tokens.slice(0, Math.ceil(tokens.length / 2));
      expect(decodeTokens(cut, name)).toBe(reference.decode(cut));
    }
  });

  it.each(['o200k_base', 'cl100k_base'] as const)('merges runs of one character as %s does (ties between equal pairs, pieces no rank covers)', (name) => {
    const reference = new Tiktoken(loadRanks(name));
    const runs = ['ŋ', '東', 'a', 'Zq', '0', '😀', '\u0301', '=', ' '].flatMap((c) => [1, 2, 3, 5, 8, 13, 33].map((n) => `x${c.repeat(n)}`));
    const wrong = runs.filter((text) => JSON.stringify(encodeTokens(text, name)) !== JSON.stringify(reference.encode(text, 'all')));
    expect(wrong).toEqual([]);
  });

  it('hands out frozen arrays: the memo\'s own tokens cannot be changed by a caller', () => {
    const first = encodeTokens('SELECT name FROM singer');
    expect(() => (first as number[]).push(1)).toThrow(TypeError);
    expect(encodeTokens('SELECT name FROM singer')).toEqual(first);
  });

  it('keeps a leading byte order mark when decoding, as Python\'s tiktoken does', () => {
    expect(decodeTokens(encodeTokens('\uFEFFSELECT 1'))).toBe('\uFEFFSELECT 1');
  });
});
