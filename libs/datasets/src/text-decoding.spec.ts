import { decodeText } from './text-decoding';
import { parseCsv } from './csv';

describe('decodeText', () => {
  it('reads UTF-8 (BOM stripped), UTF-16LE with BOM, and falls back to Windows-1252', () => {
    expect(decodeText(Buffer.from('\uFEFFcaf\u00e9', 'utf8'))).toEqual({ text: 'caf\u00e9', encoding: 'utf-8' });
    expect(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('ab', 'utf16le')]))).toEqual({ text: 'ab', encoding: 'utf-16le' });
    expect(decodeText(Buffer.from([0x95, 0x20, 0x80, 0xe9]))).toEqual({ text: '\u2022 \u20ac\u00e9', encoding: 'windows-1252' });
  });
});

describe('parseCsv', () => {
  it('handles quoted fields with commas, doubled quotes, embedded newlines and CRLF', () => {
    expect(parseCsv('a,b\r\n"x, y","say ""hi""\nthere"\r\n\r\nlast,\n')).toEqual([
      ['a', 'b'],
      ['x, y', 'say "hi"\nthere'],
      ['last', ''],
    ]);
  });
});
