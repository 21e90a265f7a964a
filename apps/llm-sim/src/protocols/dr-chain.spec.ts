import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectProtocol } from '../answer';
import { seededRng } from '../rng';
import { drChainProtocols } from './dr-chain';

const templatesDir = join(__dirname, '..', '..', '..', '..', 'libs', 'pipelines', 'templates');

/** A DR-Chain template as the simulator sees it: system text + user turn, slots filled with plausible text. */
function instructions(name: string): string {
  const text = readFileSync(join(templatesDir, `dr-chain.${name}.md`), 'utf8');
  return text.replace(/^--- \w+ ---\n/gm, '').replace(/\{\{sql\}\}/g, 'SELECT name FROM airports').replace(/\{\{\w+\}\}/g, 'x');
}

const item = { question: 'Which airport has the highest elevation?', sql: 'SELECT name FROM airports ORDER BY elevation_ft DESC LIMIT 1', dbId: 'airline' };
const protocol = (name: string) => drChainProtocols.find((p) => p.name === name)!;

describe('DR-Chain simulator protocols', () => {
  it('routes each DR-Chain prompt to its protocol, generation to plain SQL', () => {
    expect(detectProtocol(instructions('simplify'))).toBe('method:dr-chain.simplify');
    expect(detectProtocol(instructions('explain'))).toBe('method:dr-chain.explain');
    expect(detectProtocol(instructions('generate'))).toBe('sql');
    expect(detectProtocol(instructions('revise'))).toBe('method:dr-chain.revise');
  });

  it('simplifies the gold question into plainer words, and drops a word when wrong', () => {
    const render = (correct: boolean) => protocol('dr-chain.simplify').render({ item, sql: item.sql, rng: seededRng(1), correct, prompt: '' });
    expect(render(true)).toBe('What airport has the highest elevation?');
    expect(render(false).split(' ')).toHaveLength(5);
  });

  it('explains the query shown in the prompt and points at the difference when it is not the gold', () => {
    const prompt = 'Predicted query:\n```sql\nSELECT name FROM airports ORDER BY elevation_ft LIMIT 1\n```\n';
    const explained = protocol('dr-chain.explain').render({ item, sql: item.sql, rng: seededRng(1), correct: true, prompt });
    expect(explained).toContain('reads airports');
    expect(explained).toContain('It differs from the question');
    const same = protocol('dr-chain.explain').render({ item, sql: item.sql, rng: seededRng(1), correct: true, prompt: `Predicted query:\n\`\`\`sql\n${item.sql}\n\`\`\`` });
    expect(same).toContain('matches the question');
  });

  it('answers a revision with the SQL the answer model decided (its feedback is a prompt feature), as a SQL protocol', () => {
    const wrong = 'SELECT nme FROM airports';
    const failed = `Previous query:\n\`\`\`sql\n${wrong}\n\`\`\`\n\nExecution feedback: the query failed: no such column: nme\n`;
    const revise = (sql: string, correct: boolean) => protocol('dr-chain.revise').render({ item, sql, rng: seededRng(1), correct, prompt: failed });
    expect(revise(item.sql, true)).toBe(`\`\`\`sql\n${item.sql}\n\`\`\``);
    expect(revise('SELECT name FROM airports ORDER BY elevation_ft LIMIT 1', false)).toBe('```sql\nSELECT name FROM airports ORDER BY elevation_ft LIMIT 1\n```');
    expect(protocol('dr-chain.revise').answersSql).toBe(true);
    expect(protocol('dr-chain.explain').answersSql).toBeUndefined();
  });
});
