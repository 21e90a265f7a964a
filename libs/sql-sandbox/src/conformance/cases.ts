/**
 * Conformance cases: one query pair each, run on the databases of make-databases.ts, with the verdict every scorer
 * must give and the official behaviour it pins. `exec` per scorer id; `divergent` when sqlsweep must flag the item.
 * Spider citations are to test-suite-sql-eval (evaluation.py, exec_eval.py); BIRD ones to evaluation.py / mini-dev
 * evaluation_ex.py and evaluation_f1.py.
 */
export interface ConformanceCase {
  name: string;
  gold: string;
  pred: string;
  /** Expected `exec` (EX scorers) or rounded `score` (Soft-F1 scorers) per scorer id; missing = not checked. */
  expect: Record<string, number>;
  /** Scorer ids on which the item must be flagged divergent. */
  divergent?: string[];
  official: string;
}

const ALL_EX = (spider: number, bird: number) => ({
  'spider-ts@2': spider, 'spider-ex@2': spider, 'bird-ex@2': bird, 'bird-ex-unordered@1': bird, 'bird-ex-bag@1': bird,
});

export const CONFORMANCE_CASES: ConformanceCase[] = [
  { name: 'gold as prediction', gold: 'SELECT id, name FROM item WHERE id < 5', pred: 'SELECT id, name FROM item WHERE id < 5',
    expect: { ...ALL_EX(1, 1), 'bird-soft-f1@2024-06': 1, 'bird-soft-f1@2025-06': 1 }, official: 'identical results are equal under every comparison' },
  { name: 'ties with ORDER BY ... LIMIT', gold: 'SELECT name FROM item ORDER BY price DESC, id LIMIT 1', pred: 'SELECT name FROM item ORDER BY price DESC, id DESC LIMIT 1',
    expect: ALL_EX(0, 0), official: 'both queries run once on the same file and the tie is broken by each query: ink vs pad; no tie-awareness in either script' },
  { name: 'column permutation', gold: 'SELECT id, name FROM item WHERE id < 3', pred: 'SELECT name, id FROM item WHERE id < 3',
    expect: { ...ALL_EX(1, 0), 'bird-ex-unordered@1': 1 }, official: 'Spider result_eq tries column permutations; BIRD set(tuple) equality keeps column order' },
  { name: 'duplicates: bag vs set', gold: 'SELECT price FROM item WHERE id < 5', pred: 'SELECT price FROM item WHERE id < 5 GROUP BY price',
    expect: { ...ALL_EX(0, 1), 'bird-ex-bag@1': 0 }, official: 'Spider compares multisets (duplicates count); BIRD compares sets' },
  { name: 'both empty', gold: 'SELECT id FROM item WHERE 1 = 0', pred: 'SELECT name FROM item WHERE id < 0',
    expect: { ...ALL_EX(1, 1), 'bird-soft-f1@2024-06': 0, 'bird-soft-f1@2024-07': 1, 'bird-soft-f1@2025-06': 1 },
    official: 'Spider: two empty results are equal; BIRD: set() == set(); Soft-F1 8c7df91 has no both-empty rule (0), 1a78e71 returns 1.0' },
  { name: 'both erroring', gold: 'SELECT nope FROM item', pred: 'SELECT nope FROM item',
    expect: { ...ALL_EX(0, 0), 'bird-soft-f1@2025-06': 0 }, official: 'an exception in either query scores 0 (a failing gold too)' },
  { name: 'both timing out', gold: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c',
    pred: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c',
    expect: ALL_EX(0, 0), official: 'BIRD: func_timeout -> 0; Spider: its timeout never fires (the script hangs), sqlsweep scores 0 at the deadline' },
  { name: 'ORDER BY inside a subquery', gold: 'SELECT name FROM (SELECT name FROM item WHERE id < 5 ORDER BY id DESC)', pred: 'SELECT name FROM item WHERE id < 5 ORDER BY id',
    expect: ALL_EX(0, 1), official: "Spider: order matters iff 'order by' is a substring of the lower-cased gold, subqueries included" },
  { name: 'DISTINCT removal', gold: 'SELECT count(DISTINCT price) FROM item', pred: 'SELECT count(price) FROM item',
    expect: ALL_EX(1, 0), official: 'Spider keep_distinct=False removes DISTINCT from both queries; BIRD runs them verbatim' },
  { name: 'float vs int, 1 == 1.0', gold: 'SELECT 1', pred: 'SELECT 1.0',
    expect: { ...ALL_EX(1, 1), 'bird-soft-f1@2025-06': 1 }, official: 'Python == and hash treat 1 and 1.0 as equal' },
  { name: 'invalid UTF-8 in a result (difference 3)', gold: 'SELECT name FROM item WHERE id = 5', pred: "SELECT 'AB'",
    expect: ALL_EX(1, 0), official: 'Spider exec_eval: text_factory decodes with errors="ignore" (AB); BIRD: sqlite3 raises "Could not decode to UTF-8" -> 0' },
  { name: 'YEAR(CURDATE())', gold: 'SELECT 2020', pred: 'SELECT YEAR(CURDATE())',
    expect: ALL_EX(1, 0), official: 'Spider replace_cur_year rewrites it to 2020; BIRD runs it (no such function) -> 0' },
  { name: "'value' substitution", gold: 'SELECT id FROM item WHERE id = 1', pred: 'SELECT id FROM item WHERE id = value',
    expect: ALL_EX(1, 0), official: "Spider evaluate(): p_str.replace('value', '1'); BIRD: no such column -> 0" },
  { name: 'multi-statement prediction (difference 2)', gold: 'SELECT id FROM item WHERE id = 1', pred: 'SELECT id FROM item WHERE id = 1; This query selects the first item.',
    expect: ALL_EX(1, 0), official: 'Spider remove_distinct keeps sqlparse.parse(sql)[0], the first statement; BIRD: sqlite3 "You can only execute one statement at a time" -> 0' },
  { name: 'write statement (difference 5)', gold: 'SELECT id FROM item WHERE 1 = 0', pred: 'DELETE FROM item WHERE 1 = 0',
    expect: { ...ALL_EX(1, 1), 'bird-soft-f1@2025-06': 1 }, official: 'both scripts run it on a writable database: fetchall() is [] (sqlsweep: on a throw-away in-memory copy)' },
  { name: 'write statement that would empty the table', gold: 'SELECT id FROM item WHERE 1 = 0', pred: 'DELETE FROM item',
    expect: ALL_EX(1, 1), official: 'as above; the database files must still hold every row afterwards' },
  { name: 'a statement the sandbox refuses', gold: "SELECT 'x'", pred: 'PRAGMA table_info(item)',
    expect: ALL_EX(0, 0), divergent: ['spider-ts@2', 'spider-ex@2', 'bird-ex@2', 'bird-ex-unordered@1', 'bird-ex-bag@1'],
    official: 'the official scripts would run PRAGMA; the sandbox refuses it, so the item is flagged divergent (scored 0)' },
  { name: 'test-suite variant disagrees', gold: 'SELECT id FROM item WHERE price > 5', pred: 'SELECT id FROM item WHERE id IN (2, 3, 4)',
    expect: { 'spider-ts@2': 0, 'spider-ex@2': 1, 'bird-ex@2': 1 }, official: 'test-suite accuracy needs a match on every .sqlite in the folder; shop_variant.sqlite has cap at price 4' },
];

/** BIRD only, difference 4: an empty prediction and a non-string one (mini-dev turns it into " "). */
export const BIRD_EMPTY_CASES = [
  { name: 'empty string prediction', gold: 'SELECT id FROM item WHERE 1 = 0', pred: '' as string | null, exec: 1 },
  { name: 'non-string prediction', gold: 'SELECT id FROM item WHERE 1 = 0', pred: null as string | null, exec: 1 },
  { name: 'empty prediction, non-empty gold', gold: 'SELECT id FROM item', pred: '' as string | null, exec: 0 },
];
