import { createHash } from 'node:crypto';
import { canonicalJson, contentHash } from './variants';

/** canonicalJson as first written: stage keys stored in every database were made with it, so its text is the contract. */
function referenceCanonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(referenceCanonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${referenceCanonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A stage key's content, as VariantKeyer.keyOne hashes it. */
const stageKeyContent = {
  stage: 'rb-sql.correct-2', version: 3, template: 'ab'.repeat(32),
  params: { temperature: 0.1, model: 'sim-strong', theta: 13, evidence: true, fullSchemaAfter: 1 },
  inputs: { check: 'c'.repeat(64), schema: 'd'.repeat(64), 'shots/train-1': 'e'.repeat(64) }, dataset: 'f'.repeat(64), item: 'dev-42',
};

/** Every kind of value and every quirk: escapes, lone and paired surrogates, odd numbers, holes, functions, key order. */
const oddValues: unknown[] = [
  null, true, false, 0, -0, 1.5e-7, 1e21, NaN, Infinity, -Infinity, '', 'plain', 'x"\\\n\t\u0000\u001f\u007f\u2028é😀', '\ud800', 'a\udc00b',
  [], [1, undefined, null, () => 1], [, 2], [[[]]], {}, { b: 1, a: 2, '10': 3, '2': 4, 'ä': 5, Z: 6, 'a"b': 7, '': 8 },
  { f: () => 1, s: Symbol('x'), u: undefined, n: null }, { date: new Date(0), map: new Map([[1, 2]]), set: new Set([1]) },
  { nested: { deeper: [{ z: 1, y: [2, { x: '\\' }] }] } }, stageKeyContent,
];

describe('canonicalJson and contentHash', () => {
  it('write exactly the text they always wrote, quirks included', () => {
    for (const value of oddValues) expect([value, canonicalJson(value)]).toEqual([value, referenceCanonicalJson(value)]);
    expect(canonicalJson({ z: [1, undefined, 'x'], a: { b: undefined, f: () => 1 } })).toBe('{"a":{"f":undefined},"z":[1,,"x"]}');
  });

  it('hash that text with SHA-256: a stage key stays the key stored before', () => {
    for (const value of oddValues) expect(contentHash(value)).toBe(createHash('sha256').update(referenceCanonicalJson(value)).digest('hex'));
    // Pinned with the code that made the stored keys: a change here re-keys (and re-runs) every stored stage.
    expect(contentHash(stageKeyContent)).toBe('43a0159c0b986811581befb03a3a298195ca06cac48789342fd16b7a36492595');
  });
});
