/** Character bigrams of a name (the name itself when shorter than two characters). */
function bigrams(s: string): Set<string> {
  if (s.length < 2) return new Set([s]);
  const out = new Set<string>();
  for (let i = 0; i < s.length - 1; i++) out.add(s.slice(i, i + 2));
  return out;
}

export function jaccardSimilarity(a: string, b: string): number {
  const x = bigrams(a);
  const y = bigrams(b);
  let shared = 0;
  for (const g of x) if (y.has(g)) shared++;
  return shared / (x.size + y.size - shared);
}

export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** 1 for equal names, 0 for names sharing nothing: the mean of bigram Jaccard and length-normalised edit similarity. */
export function nameSimilarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length) || 1;
  return (jaccardSimilarity(a, b) + (1 - editDistance(a, b) / longest)) / 2;
}

/** `"Main"."Table Name"` / `db.table` / `Table Name` -> `table_name`, for comparison only. */
export function normalizeName(name: string): string {
  const last = name.replace(/["`[\]]/g, '').split('.').pop() ?? '';
  return last.trim().toLowerCase().replace(/\s+/g, '_');
}

export interface TableMapping {
  /** schema tables, deduplicated, in the order the LLM named them */
  tables: string[];
  /** names that were not tables but were mapped to the nearest one */
  mapped: Array<{ from: string; to: string; similarity: number }>;
  /** names that mapped to nothing: hallucinations, dropped */
  dropped: string[];
}

/**
 * R3 3.2: names the LLM returned are matched to the schema's tables; a name that is not a table goes to the most
 * similar table when the similarity reaches `threshold`, and is dropped as a hallucination otherwise.
 */
export function mapToSchemaTables(names: readonly string[], schemaTables: readonly string[], threshold: number): TableMapping {
  const byNorm = new Map(schemaTables.map((t) => [normalizeName(t), t]));
  const tables: string[] = [];
  const mapped: TableMapping['mapped'] = [];
  const dropped: string[] = [];
  for (const name of names) {
    const norm = normalizeName(name);
    let table = byNorm.get(norm);
    if (!table) {
      let best = { table: '', similarity: -1 };
      for (const [candidateNorm, candidate] of byNorm) {
        const similarity = nameSimilarity(norm, candidateNorm);
        if (similarity > best.similarity) best = { table: candidate, similarity };
      }
      if (best.similarity >= threshold) {
        table = best.table;
        mapped.push({ from: name, to: table, similarity: Math.round(best.similarity * 1000) / 1000 });
      } else {
        dropped.push(name);
      }
    }
    if (table && !tables.includes(table)) tables.push(table);
  }
  return { tables, mapped, dropped };
}
