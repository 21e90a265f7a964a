/**
 * JSON-safe encoding of one SQLite value, chosen so a result stored as jsonb compares exactly as Python's sqlite3
 * values compare in the official scripts:
 *   NULL                          -> null
 *   TEXT                          -> string
 *   INTEGER within +-(2^53 - 1)   -> number (always integral)
 *   INTEGER beyond that           -> { int: "<decimal digits>" }
 *   REAL, finite and non-integral -> number (never integral, so it cannot be mistaken for an INTEGER)
 *   REAL, integral or non-finite  -> { real: number | "Infinity" | "-Infinity" | "NaN" }  (e.g. 1.0 -> { real: 1 })
 *   BLOB                          -> { blob: "<base64>" }
 */
export type SqlValue =
  | null
  | string
  | number
  | { int: string }
  | { real: number | 'Infinity' | '-Infinity' | 'NaN' }
  | { blob: string };

/** Encodes a value read with `safeIntegers(true)`: INTEGER arrives as bigint, REAL as number. */
export function encodeSqlValue(v: unknown): SqlValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') {
    return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(-Number.MAX_SAFE_INTEGER) ? Number(v) : { int: v.toString() };
  }
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return { real: Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity' };
    return Number.isInteger(v) ? { real: v } : v;
  }
  if (Buffer.isBuffer(v)) return { blob: v.toString('base64') };
  throw new Error(`unexpected SQLite value of type ${typeof v}`);
}

export type SqlValueType = 'null' | 'text' | 'integer' | 'real' | 'blob';

export function sqlValueType(v: SqlValue): SqlValueType {
  if (v === null) return 'null';
  if (typeof v === 'string') return 'text';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'real';
  if ('int' in v) return 'integer';
  if ('real' in v) return 'real';
  return 'blob';
}

function realOf(v: { real: number | string }): number {
  return typeof v.real === 'number' ? v.real : Number(v.real);
}

/**
 * A key such that two values have the same key iff Python's `==` holds for them (1 == 1.0, 2**60 != 2.0**60 + 1
 * ...), used for sets, multisets and equality.
 */
export function sqlValueKey(v: SqlValue): string {
  if (v === null) return 'z';
  if (typeof v === 'string') return `s${v}`;
  if (typeof v === 'number') return Number.isInteger(v) ? `n${v}` : `n${pyFloatRepr(v)}`;
  if ('int' in v) return `n${v.int}`;
  if ('real' in v) {
    const r = realOf(v);
    if (!Number.isFinite(r)) return Number.isNaN(r) ? 'nan' : `n${r > 0 ? 'inf' : '-inf'}`;
    return `n${BigInt(r).toString()}`; // integral double: exact decimal, so 2.0**60 == 2**60 as in Python
  }
  return `b${v.blob}`;
}

/** Python's `str(x) + str(type(x))` for the value as Python's sqlite3 returns it (the Spider evaluator's sort key). */
export function pythonSortKey(v: SqlValue): string {
  if (v === null) return "None<class 'NoneType'>";
  if (typeof v === 'string') return `${v}<class 'str'>`;
  if (typeof v === 'number') {
    return Number.isInteger(v) ? `${v}<class 'int'>` : `${pyFloatRepr(v)}<class 'float'>`;
  }
  if ('int' in v) return `${v.int}<class 'int'>`;
  if ('real' in v) return `${pyFloatRepr(realOf(v))}<class 'float'>`;
  return `${pyBytesRepr(Buffer.from(v.blob, 'base64'))}<class 'bytes'>`;
}

/** Python's repr(float): shortest round-trip digits, scientific below 1e-4 and from 1e16. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e');
  const exp = Number(expText);
  if (exp >= -4 && exp < 16) {
    const fixed = x.toFixed(Math.max(0, mantissa.replace(/^-?\d\.?/, '').length - exp));
    return fixed.includes('.') ? fixed : `${fixed}.0`;
  }
  const sign = exp < 0 ? '-' : '+';
  return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
}

function pyBytesRepr(b: Buffer): string {
  let out = "b'";
  for (const byte of b) {
    if (byte === 0x5c) out += '\\\\';
    else if (byte === 0x27) out += "\\'";
    else if (byte === 0x0a) out += '\\n';
    else if (byte === 0x0d) out += '\\r';
    else if (byte === 0x09) out += '\\t';
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `${out}'`;
}
