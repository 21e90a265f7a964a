import * as fs from 'node:fs';
import type Database from 'better-sqlite3';
import { MinibenchBuildError } from './errors';

/** Runs a SQL script statement by statement so an error can name the line it starts on. */
export function runScript(db: Database.Database, file: string): void {
  const text = fs.readFileSync(file, 'utf8');
  for (const stmt of splitStatements(text)) {
    try {
      db.prepare(stmt.sql).run();
    } catch (err) {
      throw new MinibenchBuildError(file, (err as Error).message, undefined, stmt.line);
    }
  }
}

export interface ScriptStatement {
  sql: string;
  line: number;
}

/**
 * Splits a script on top-level semicolons, skipping quoted text and comments. CREATE TRIGGER bodies
 * (BEGIN ... END;) are kept whole by counting BEGIN/END after a CREATE TRIGGER.
 */
export function splitStatements(text: string): ScriptStatement[] {
  const out: ScriptStatement[] = [];
  let start = 0;
  let line = 1;
  let startLine = 1;
  let i = 0;
  const flush = (end: number): void => {
    const sql = text.slice(start, end);
    if (stripComments(sql).trim() !== '') {
      const leading = sql.match(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*/)?.[0] ?? '';
      out.push({ sql: sql.trim(), line: startLine + (leading.match(/\n/g)?.length ?? 0) });
    }
  };
  let triggerDepth = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') line++;
    if (c === "'" || c === '"' || c === '`' || c === '[') {
      const close = c === '[' ? ']' : c;
      let j = i + 1;
      while (j < text.length) {
        if (text[j] === close) {
          if (close !== ']' && text[j + 1] === close) {
            j += 2;
            continue;
          }
          break;
        }
        j++;
      }
      line += text.slice(i + 1, j).split('\n').length - 1;
      i = j + 1;
      continue;
    }
    if (c === '-' && text[i + 1] === '-') {
      const nl = text.indexOf('\n', i);
      i = nl === -1 ? text.length : nl;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      line += text.slice(i, stop).split('\n').length - 1;
      i = stop;
      continue;
    }
    if (/[A-Za-z_]/.test(c) && (i === 0 || !/[A-Za-z0-9_]/.test(text[i - 1]))) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 32))?.[0] ?? c;
      const upper = word.toUpperCase();
      if (upper === 'TRIGGER' && /CREATE\s+(TEMP\s+|TEMPORARY\s+)?$/i.test(stripComments(text.slice(start, i)).trim() + ' ')) {
        triggerDepth = -1; // inside a trigger header, waiting for BEGIN
      } else if (upper === 'BEGIN' && triggerDepth !== 0) {
        triggerDepth = triggerDepth === -1 ? 1 : triggerDepth + 1;
      } else if (upper === 'CASE' && triggerDepth > 0) {
        triggerDepth++;
      } else if (upper === 'END' && triggerDepth > 0) {
        triggerDepth--;
        if (triggerDepth === 0) triggerDepth = -2; // body closed; the next ';' ends the statement
      }
      i += word.length;
      continue;
    }
    if (c === ';' && triggerDepth <= 0 && triggerDepth !== -1) {
      flush(i + 1);
      start = i + 1;
      startLine = line;
      triggerDepth = 0;
    }
    i++;
  }
  flush(text.length);
  return out;
}

export function stripComments(sql: string): string {
  return sql.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
}

