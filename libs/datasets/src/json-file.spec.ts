import { arrayElementLines, lineColumnAt } from './json-file';

describe('arrayElementLines', () => {
  it('gives the line each top-level element starts on, whatever the strings and nesting inside', () => {
    const text = [
      '[',
      '  {"q": "a \\"quoted\\" ], [ { string", "sql": {"from": [1, [2, 3]]}},',
      '',
      '  {"q":',
      '"split over lines"},  {"q": "same line"},',
      '  "scalar", 3,',
      '  []',
      ']',
    ].join('\n');
    expect(JSON.parse(text)).toHaveLength(6);
    expect(arrayElementLines(text)).toEqual([2, 4, 5, 6, 6, 7]);
  });

  it('gives none for an empty array', () => {
    expect(arrayElementLines('[\n]\n')).toEqual([]);
  });
});

describe('lineColumnAt', () => {
  it('counts lines and columns from 1', () => {
    expect(lineColumnAt('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumnAt('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
});
