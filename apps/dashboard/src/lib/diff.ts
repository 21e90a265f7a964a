/** One piece of a diff: in both, only in the first (`del`), or only in the second (`add`). */
export interface DiffPart<T> { op: 'same' | 'del' | 'add'; value: T }

/** Longest-common-subsequence diff of two sequences (SQL tokens, result rows), by `key`. Quadratic: keep inputs small. */
export function diff<T>(a: T[], b: T[], key: (x: T) => string = String): DiffPart<T>[] {
  const ka = a.map(key);
  const kb = b.map(key);
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = ka[i] === kb[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out: DiffPart<T>[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (ka[i] === kb[j]) { out.push({ op: 'same', value: a[i] }); i++; j++; }
    else if (lcs[i + 1][j] >= lcs[i][j + 1]) out.push({ op: 'del', value: a[i++] });
    else out.push({ op: 'add', value: b[j++] });
  }
  while (i < n) out.push({ op: 'del', value: a[i++] });
  while (j < m) out.push({ op: 'add', value: b[j++] });
  return out;
}

/** SQL split into words, quoted strings, numbers and punctuation, whitespace kept as its own tokens. */
export function sqlTokens(sql: string): string[] {
  return sql.match(/'(?:[^']|'')*'|"(?:[^"]|"")*"|`[^`]*`|\s+|[A-Za-z_][A-Za-z0-9_.]*|\d+(?:\.\d+)?|<=|>=|<>|!=|\|\||./g) ?? [];
}

/**
 * Rows of two result tables compared as multisets (the evaluator's default): each gold row matched by an equal
 * predicted row at most once; the rest are missing from the prediction or extra in it.
 */
export function rowDiff<R>(gold: R[], predicted: R[], key: (r: R) => string = (r) => JSON.stringify(r)): { matched: number; missing: R[]; extra: R[] } {
  const left = new Map<string, number>();
  for (const r of predicted) left.set(key(r), (left.get(key(r)) ?? 0) + 1);
  const missing: R[] = [];
  let matched = 0;
  for (const r of gold) {
    const k = key(r);
    const n = left.get(k) ?? 0;
    if (n > 0) { left.set(k, n - 1); matched++; } else missing.push(r);
  }
  const extra: R[] = [];
  for (const r of predicted) {
    const k = key(r);
    const n = left.get(k) ?? 0;
    if (n > 0) { left.set(k, n - 1); extra.push(r); }
  }
  return { matched, missing, extra };
}
