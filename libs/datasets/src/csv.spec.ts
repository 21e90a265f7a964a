import { parseCsvRows } from './csv';

describe('parseCsvRows', () => {
  it('gives each record the line it starts on, through quoted line breaks, CRLF and a BOM', () => {
    expect(parseCsvRows('\ufeffa,b\r\n"x, y","say ""hi"""\r\n"multi\nline",\r\n\r\nlast,"q"')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['x, y', 'say "hi"'] },
      { line: 3, fields: ['multi\nline', ''] },
      { line: 6, fields: ['last', 'q'] },
    ]);
  });

  it('keeps a quote inside an unquoted field as text', () => {
    expect(parseCsvRows('5" pipe,x\n')).toEqual([{ line: 1, fields: ['5" pipe', 'x'] }]);
  });

  it('marks a quoted field that never closes', () => {
    expect(parseCsvRows('a,b\nc,"d\ne\n')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['c', 'd\ne\n'], unterminated: true },
    ]);
  });
});
