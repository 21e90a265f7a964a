export type ParsedSql = { ok: true; sql: string } | { ok: false; error: string };

/**
 * Extracts one SQL query from an LLM answer: the last ```sql fenced block (models often show a draft first), else
 * any fenced block, else the text from the first SELECT/WITH. Strict about there being a query at all.
 */
export function parseSqlAnswer(raw: string): ParsedSql {
  const fences = [...raw.matchAll(/```([a-zA-Z]*)[ \t]*\n([\s\S]*?)```/g)];
  const sqlFences = fences.filter((m) => m[1].toLowerCase() === 'sql' || m[1] === '');
  let sql = sqlFences.length > 0 ? sqlFences[sqlFences.length - 1][2] : undefined;
  if (sql === undefined) {
    const start = raw.search(/\b(SELECT|WITH)\b/i);
    if (start < 0) return { ok: false, error: 'no SQL query found in the answer' };
    sql = raw.slice(start);
  }
  sql = sql.trim().replace(/;\s*$/, '').trim();
  if (!sql) return { ok: false, error: 'the SQL block is empty' };
  return { ok: true, sql: sql.replace(/\s*\n\s*/g, ' ') };
}
