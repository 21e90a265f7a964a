import { parseSubQuestions } from './sub-questions';
import { parseTableList } from './table-list';
import { editDistance, jaccardSimilarity, mapToSchemaTables, nameSimilarity, normalizeName } from './table-mapping';

describe('parseTableList', () => {
  it.each([
    ['["airports", "flights"]', ['airports', 'flights']],
    ['Here they are:\n```json\n["Paragraphs", "Documents"]\n```', ['Paragraphs', 'Documents']],
    ["['airports', 'routes']", ['airports', 'routes']],
    ['- airports\n- flights\n', ['airports', 'flights']],
    ['1. `airports`\n2. "flights"', ['airports', 'flights']],
    ['Tables: airports, flights', ['airports', 'flights']],
  ])('reads %j', (raw, names) => {
    expect(parseTableList(raw)).toEqual({ ok: true, names });
  });

  it('skips prose lines around a list', () => {
    expect(parseTableList('The question needs the following tables because it asks about airports:\n- airports')).toEqual({ ok: true, names: ['airports'] });
  });

  it('fails with a reason when there is no name at all', () => {
    expect(parseTableList('I cannot determine which of these would be needed for that question at all.')).toEqual({ ok: false, error: 'no table names found in the answer' });
  });
});

describe('table-name mapping (Jaccard and edit distance)', () => {
  const tables = ['airports', 'airlines', 'flights', 'aircraft', 'passengers', 'bookings'];

  it('scores names', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(jaccardSimilarity('abc', 'abc')).toBe(1);
    expect(nameSimilarity('airport', 'airports')).toBeGreaterThan(nameSimilarity('airport', 'airlines'));
    expect(normalizeName('main."Flight Legs"')).toBe('flight_legs');
  });

  it('keeps exact names (any case or qualification), maps near misses and drops hallucinations', () => {
    const m = mapToSchemaTables(['AIRPORTS', 'main.flights', 'airport', 'passenger', 'weather_reports'], tables, 0.5);
    expect(m.tables).toEqual(['airports', 'flights', 'passengers']);
    expect(m.mapped.map((x) => [x.from, x.to])).toEqual([['airport', 'airports'], ['passenger', 'passengers']]);
    expect(m.dropped).toEqual(['weather_reports']);
  });

  it('maps nothing above a threshold of 1 unless the name is exact', () => {
    expect(mapToSchemaTables(['airport'], tables, 1)).toEqual({ tables: [], mapped: [], dropped: ['airport'] });
  });
});

describe('parseSubQuestions', () => {
  it('reads numbered lines and skips the heading', () => {
    expect(parseSubQuestions('Sub-questions:\n1. Find the airports.\n2) Order them by elevation.\n')).toEqual({
      ok: true, subQuestions: ['Find the airports.', 'Order them by elevation.'],
    });
  });

  it('reads bullets and JSON arrays', () => {
    expect(parseSubQuestions('- a?\n- b?')).toEqual({ ok: true, subQuestions: ['a?', 'b?'] });
    expect(parseSubQuestions('["a?", "b?"]')).toEqual({ ok: true, subQuestions: ['a?', 'b?'] });
  });

  it('takes unmarked lines when no line is marked', () => {
    expect(parseSubQuestions('Find the airports\nTake the highest')).toEqual({ ok: true, subQuestions: ['Find the airports', 'Take the highest'] });
  });

  it('fails on an empty answer', () => {
    expect(parseSubQuestions('  \n')).toEqual({ ok: false, error: 'no sub-questions found in the answer' });
  });
});
