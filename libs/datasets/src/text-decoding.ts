const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Windows-1252 bytes 0x80-0x9F (Node's decoder treats the label as Latin-1 and leaves C1 controls there). */
const CP1252_HIGH =
  '\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F' +
  '\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178';

function decodeCp1252(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b >= 0x80 && b <= 0x9f ? CP1252_HIGH[b - 0x80] : String.fromCharCode(b);
  return out;
}
const utf16le = new TextDecoder('utf-16le');

/**
 * Decodes a text file of unknown encoding the way BIRD's description CSVs need: UTF-16 when it has a UTF-16
 * byte-order mark, UTF-8 (BOM stripped) when the bytes are valid UTF-8, otherwise Windows-1252 (the release has
 * files with bare 0x95 bullets and similar). Returns the encoding used so loaders can report it.
 */
export function decodeText(bytes: Uint8Array): { text: string; encoding: 'utf-8' | 'utf-16le' | 'windows-1252' } {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
    return { text: utf16le.decode(bytes.subarray(2)), encoding: 'utf-16le' };
  }
  try {
    const text = utf8.decode(bytes);
    return { text: text.replace(/^\uFEFF/, ''), encoding: 'utf-8' };
  } catch {
    return { text: decodeCp1252(bytes), encoding: 'windows-1252' };
  }
}
