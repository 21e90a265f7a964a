import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSqlAnswer } from '@sqlsweep/pipelines';
import { detectProtocol } from '../answer';
import { rbSqlProtocols } from './rb-sql';

const templates = join(__dirname, '..', '..', '..', '..', 'libs', 'pipelines', 'templates');

/** A template file as the simulator sees its prompt: system text and user turn, slots filled with plain text. */
function instructions(name: string): string {
  const source = readFileSync(join(templates, `${name}.md`), 'utf8');
  return source.replace(/^--- \w+ ---$/gm, '').replace(/\{\{\w+\}\}/g, 'x').toLowerCase();
}

describe('simulator protocols for the RB-SQL prompts', () => {
  it.each([
    ['rb-sql.decompose', 'sub_questions'],
    ['rb-sql.generate', 'method:rb-sql.generate'],
    ['rb-sql.generate-plain', 'sql'],
  ])('%s is answered with the %s protocol', (template, protocol) => {
    expect(detectProtocol(instructions(template))).toBe(protocol);
  });

  it('answers the organized prompt in its steps, the values taken from the sub-questions, the SQL last', () => {
    const sql = "SELECT name FROM schools WHERE county = 'Alameda' AND kind = 'C'";
    const answer = rbSqlProtocols[0].render({ item: { question: 'Which schools are in Alameda and open?' }, sql, prompt: '', correct: true } as Parameters<(typeof rbSqlProtocols)[0]['render']>[0]);
    expect(answer).toMatch(/^Values: 'Alameda' \(sub-question 1\)$/m);
    expect(parseSqlAnswer(answer)).toMatchObject({ ok: true, sql });
  });
});
