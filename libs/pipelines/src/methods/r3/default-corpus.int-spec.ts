import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipelineGrids, R3_DEFAULT_RAG_CORPUS, R3_SCHEMA_DESCRIPTION_RAG_CORPUS } from '@sqlsweep/contracts';
import { loadDataset, type DatabaseSchema } from '@sqlsweep/datasets';
import { corpusDir } from '../../corpus-dir';

const repoRoot = join(__dirname, '..', '..', '..', '..', '..');

/** Lower-cased, with runs of white space as one space. */
const normal = (text: string) => text.toLowerCase().replace(/\s+/g, ' ');

/**
 * What of a database's schema a corpus must not hold: its identifiers that are no English word (with an underscore
 * or a digit: `tail_number`, `elevation_ft`) and its column and value descriptions of three words or more. Plain-word
 * names (`country`, `model`) are ordinary English, which any general-knowledge text holds.
 */
function schemaText(databases: DatabaseSchema[]): { identifiers: string[]; descriptions: string[] } {
  const columns = databases.flatMap((d) => d.tables.flatMap((t) => t.columns));
  const names = databases.flatMap((d) => [...d.tables.map((t) => t.name), ...d.tables.flatMap((t) => t.columns.map((c) => c.name))]);
  const descriptions = columns.flatMap((c) => [c.description, c.valueDescription]).filter((d): d is string => !!d && d.trim().split(/\s+/).length >= 3);
  return { identifiers: [...new Set(names.filter((n) => /[_\d]/.test(n)).map((n) => n.toLowerCase()))], descriptions: [...new Set(descriptions.map(normal))] };
}

function leaks(corpus: string, schema: { identifiers: string[]; descriptions: string[] }): string[] {
  const text = normal(corpus);
  const words = new Set(text.split(/[^a-z0-9_]+/));
  return [...schema.identifiers.filter((id) => words.has(id)), ...schema.descriptions.filter((d) => text.includes(d))];
}

describe("R3's default RAG corpus (built by set-up from wordnet-base)", () => {
  let schema: { identifiers: string[]; descriptions: string[] };
  beforeAll(async () => {
    const dataset = await loadDataset({ format: 'minibench', path: join(repoRoot, 'data', 'minibench', 'dist') });
    schema = schemaText(dataset.databases);
  });

  const read = (path: string) => {
    const file = join(corpusDir(), path);
    if (!existsSync(file)) throw new Error(`${file} is missing: npm run setup builds it (it installs wordnet-base with apt-get when missing)`);
    return readFileSync(file, 'utf8');
  };

  it('is the ragCorpus knob default', () => {
    expect(pipelineGrids.r3.parse({}).ragCorpus).toEqual([R3_DEFAULT_RAG_CORPUS]);
  });

  it('holds none of the minibench databases\' identifiers or column descriptions, unlike the schema-description option', () => {
    expect(schema.identifiers.length).toBeGreaterThan(20);
    expect(schema.descriptions.length).toBeGreaterThan(20);
    expect(leaks(read(R3_DEFAULT_RAG_CORPUS), schema)).toEqual([]);
    // the check finds them where they are: the named schema-description corpus leaks them by design
    expect(leaks(read(R3_SCHEMA_DESCRIPTION_RAG_CORPUS), schema).length).toBeGreaterThan(20);
  });

  it('is general-knowledge text of a sensible size, one sorted "lemmas: definition" line per noun synset', () => {
    const corpus = read(R3_DEFAULT_RAG_CORPUS);
    expect(Buffer.byteLength(corpus)).toBeGreaterThan(500_000);
    expect(Buffer.byteLength(corpus)).toBeLessThan(4_000_000);
    const lines = corpus.trimEnd().split('\n');
    expect(lines.every((l) => /^[^:]+: \S/.test(l))).toBe(true);
    expect([...lines].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(lines);
    expect(corpus).toMatch(/^airport, airdrome, aerodrome, drome: an airfield equipped with control tower/m);
  });
});
