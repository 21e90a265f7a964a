const utf8 = new TextDecoder('utf-8', { fatal: true });
const cp1252 = new TextDecoder('windows-1252');
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
    return { text: cp1252.decode(bytes), encoding: 'windows-1252' };
  }
}
