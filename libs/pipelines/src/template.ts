import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatMessage } from '@sqlsweep/llm';

export const templatesDir = join(__dirname, '..', 'templates');

/**
 * A prompt template file: `--- system ---` and `--- user ---` sections with `{{name}}` slots. Its hash is part of
 * the key of every stage that renders it, so editing a template invalidates exactly those stages.
 */
export interface PromptTemplate {
  name: string;
  hash: string;
  sections: Array<{ role: ChatMessage['role']; text: string }>;
}

export function loadTemplate(name: string, dir = templatesDir): PromptTemplate {
  const file = join(dir, `${name}.md`);
  const source = readFileSync(file, 'utf8');
  const parts = source.split(/^--- (system|user|assistant) ---\n/m);
  if (parts[0].trim() !== '' || parts.length < 3) throw new Error(`${file}: expected "--- system ---" / "--- user ---" sections`);
  const sections: PromptTemplate['sections'] = [];
  for (let i = 1; i < parts.length; i += 2) sections.push({ role: parts[i] as ChatMessage['role'], text: parts[i + 1].replace(/\n+$/, '') });
  return { name, hash: createHash('sha256').update(source).digest('hex').slice(0, 16), sections };
}

export function renderTemplate(t: PromptTemplate, values: Record<string, string>): ChatMessage[] {
  return t.sections.map(({ role, text }) => ({
    role,
    content: text.replace(/\{\{(\w+)\}\}/g, (_m, slot: string) => {
      const value = values[slot];
      if (value === undefined) throw new Error(`template ${t.name}: no value for {{${slot}}}`);
      return value;
    }),
  }));
}
