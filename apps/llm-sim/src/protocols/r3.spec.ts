import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectProtocol } from '../answer';
import { r3Protocols } from './r3';

const templates = join(__dirname, '..', '..', '..', '..', 'libs', 'pipelines', 'templates');

/** A template file as the simulator sees its prompt: system text and user turn, slots filled with plain text. */
function instructions(name: string): string {
  const source = readFileSync(join(templates, `${name}.md`), 'utf8');
  return source.replace(/^--- \w+ ---$/gm, '').replace(/\{\{\w+\}\}/g, 'x');
}

describe('simulator protocols for the R3 prompts', () => {
  it.each([
    ['r3.link', 'tables'],
    ['r3.decompose', 'sub_questions'],
    ['r3.generate', 'method:r3-generate'],
    ['r3.generate-direct', 'sql'],
  ])('%s is answered with the %s protocol', (template, protocol) => {
    expect(detectProtocol(instructions(template))).toBe(protocol);
  });

  it('answers the generation prompt with the (possibly corrupted) SQL, fenced', () => {
    const rendered = r3Protocols[0].render({ sql: 'SELECT 1', prompt: '', correct: true } as Parameters<(typeof r3Protocols)[0]['render']>[0]);
    expect(rendered).toBe('```sql\nSELECT 1\n```');
  });
});
