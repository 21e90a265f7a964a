import { isUtf8 } from 'node:buffer';

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

/**
 * The byte offset of the first byte that does not start a valid UTF-8 sequence (overlong forms, surrogates and
 * code points past U+10FFFF included, as the WHATWG decoder rejects them), or undefined when all of it is valid.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number | undefined {
  if (isUtf8(bytes)) return undefined; // native and fast; the scan below only runs to find the offset
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0; // overlong
      if (b === 0xed) hi = 0x9f; // surrogates
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90; // overlong
      if (b === 0xf4) hi = 0x8f; // past U+10FFFF
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += need + 1;
  }
  return undefined;
}
