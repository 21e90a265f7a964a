import { sqlSkeleton } from '../../sql';

/** The RB-SQL skeleton with every mask written `_`: the form the skeleton prompt asks for. */
export const underscoreSkeleton = (sql: string): string => sqlSkeleton(sql).replace(/\[(?:table_name|column_name|value)\]/g, '_');

/** Tokens of the `_` skeleton: masks, keywords and names, and each punctuation mark apart (comparisons kept whole). */
export function skeletonTokens(sql: string): string[] {
  return underscoreSkeleton(sql).match(/\w+|<>|!=|>=|<=|\|\||[^\w\s]/g) ?? [];
}

/**
 * The query skeleton DAIL-SQL compares (its reference code's `sql2skeleton`), as tokens: the `_` skeleton with
 * qualified names as one mask, alias declarations, join conditions and join chains dropped, lists and simple
 * comparisons collapsed into one mask, conjunctions of collapsed conditions merged, and the ORDER BY expression's
 * head masked. Its τ = 0.9 was set for this coarse form; the full skeleton (every join condition and alias) would
 * almost never reach it.
 */
export function dailSkeletonTokens(sql: string): string[] {
  let s = skeletonTokens(sql).join(' ');
  s = s.replace(/_ \. (?:_|\*)/g, '_');
  s = s.replace(/ AS _/g, '');
  s = s.replace(/ ON _ = _(?: (?:AND|OR) _ = _)*/g, '');
  s = s.replace(/_(?: (?:NATURAL |LEFT |RIGHT |FULL |INNER |CROSS |OUTER )*JOIN _)+/g, '_');
  while (s.includes('_ , _')) s = s.replaceAll('_ , _', '_');
  s = s.replace(/_ (?:=|!=|<>|>=|<=|>|<) _/g, '_');
  while (/WHERE _ (?:AND|OR) _/.test(s)) s = s.replace(/WHERE _ (?:AND|OR) _/g, 'WHERE _');
  s = s.replace(/ORDER BY (?!_ )\S+/g, 'ORDER BY _');
  return s.split(' ').filter(Boolean);
}
