import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { ChatMessage } from '@sqlsweep/llm';

/** Zero-shot text-to-SQL prompts (schema DDL + question) for every Spider dev item whose database is present. */
export function spiderPrompts(spiderDir: string): ChatMessage[][] {
  const items = JSON.parse(readFileSync(join(spiderDir, 'dev.json'), 'utf8')) as Array<{ db_id: string; question: string }>;
  const ddl = new Map<string, string>();
  const prompts: ChatMessage[][] = [];
  for (const item of items) {
    let schema = ddl.get(item.db_id);
    if (schema === undefined) {
      const file = join(spiderDir, 'database', item.db_id, `${item.db_id}.sqlite`);
      if (!existsSync(file)) continue;
      const db = new Database(file, { readonly: true });
      schema = (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL").all() as Array<{ sql: string }>)
        .map((r) => `${r.sql};`)
        .join('\n');
      db.close();
      ddl.set(item.db_id, schema);
    }
    prompts.push([
      { role: 'system', content: 'You are a SQLite expert. Answer with one SQLite query in a ```sql fenced block.' },
      { role: 'user', content: `${schema}\n\nQuestion: ${item.question}` },
    ]);
  }
  return prompts;
}
