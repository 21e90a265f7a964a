import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tiktoken } from 'js-tiktoken/lite';
import { countTokens, loadRanks } from './tokens';

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

describe('countTokens', () => {
  it.each(['o200k_base', 'cl100k_base'] as const)('counts exactly what %s encodes, piece cache or not', (name) => {
    const reference = new Tiktoken(loadRanks(name));
    const all = texts();
    expect(all.length).toBeGreaterThan(10);
    for (const text of [...all, ...all]) expect(countTokens(text, name)).toBe(reference.encode(text, 'all').length);
  });
});
