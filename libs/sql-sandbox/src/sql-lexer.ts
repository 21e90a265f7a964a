export type SqlTokenKind = 'word' | 'string' | 'quoted' | 'comment' | 'space' | 'other';

export interface SqlToken {
  kind: SqlTokenKind;
  text: string;
}

function isWordChar(c: string): boolean {
  const code = c.charCodeAt(0);
  return (
    (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 36 || code >= 0x80
  );
}

function isSpace(c: string | undefined): boolean {
  if (c === undefined) return false;
  const code = c.charCodeAt(0);
  return code === 32 || (code >= 9 && code <= 13); // SQLite's own whitespace; other characters >= 0x80 are name characters
}

/**
 * A small SQLite lexer, enough to find keywords outside string literals, quoted identifiers and comments.
 * Concatenating every token's text gives back the input exactly.
 */
export function lexSql(sql: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const start = i;
    if (c === "'" || c === '"' || c === '`') {
      i++;
      while (i < sql.length) {
        if (sql[i] === c) {
          if (sql[i + 1] === c) i += 2;
          else {
            i++;
            break;
          }
        } else i++;
      }
      tokens.push({ kind: c === "'" ? 'string' : 'quoted', text: sql.slice(start, i) });
    } else if (c === '[') {
      const end = sql.indexOf(']', i);
      i = end < 0 ? sql.length : end + 1;
      tokens.push({ kind: 'quoted', text: sql.slice(start, i) });
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
      tokens.push({ kind: 'comment', text: sql.slice(start, i) });
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      tokens.push({ kind: 'comment', text: sql.slice(start, i) });
    } else if (isSpace(c)) {
      while (i < sql.length && isSpace(sql[i])) i++;
      tokens.push({ kind: 'space', text: sql.slice(start, i) });
    } else if (isWordChar(c)) {
      while (i < sql.length && isWordChar(sql[i])) i++;
      tokens.push({ kind: 'word', text: sql.slice(start, i) });
    } else {
      i++;
      tokens.push({ kind: 'other', text: c });
    }
  }
  return tokens;
}
