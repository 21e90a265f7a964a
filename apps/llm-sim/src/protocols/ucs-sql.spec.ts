import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectProtocol } from '../answer';
import type { GoldItem } from '../gold-index';
import { seededRng } from '../rng';
import { ucsSqlProtocols } from './ucs-sql';

const templatesDir = join(__dirname, '..', '..', '..', '..', 'libs', 'pipelines', 'templates');
/** The system text and user turn of a UCS-SQL template with its slots filled, lower-cased as the detector sees it. */
function instructions(name: string, slots: Record<string, string>): string {
  const text = readFileSync(join(templatesDir, `ucs-sql.${name}.md`), 'utf8').replace(/\{\{(\w+)\}\}/g, (_m, s: string) => slots[s] ?? '');
  return text.replace(/^--- \w+ ---\n/gm, '').toLowerCase();
}

const item: GoldItem = {
  dbId: 'flights', question: 'Which route had the worst punctuality in January 2024? Give its flight number.',
  sql: "SELECT T2.flight_number FROM flights AS T1 INNER JOIN routes AS T2 ON T1.route_id = T2.route_id WHERE T1.flight_date LIKE '2024-01%' GROUP BY T2.route_id ORDER BY AVG(T1.arrival_delay_min) DESC LIMIT 1",
};
const render = (name: string, prompt: string, correct = true) =>
  ucsSqlProtocols.find((p) => p.name === name)!.render({ item, sql: item.sql, rng: seededRng(1), correct, prompt });

describe('UCS-SQL simulator protocols', () => {
  it('recognise each UCS-SQL prompt, and leave the skeleton and direct generation to the built-ins', () => {
    expect(detectProtocol(instructions('question', {}))).toBe('method:ucs-sql.terms');
    expect(detectProtocol(instructions('content', {}))).toBe('method:ucs-sql.identifiers');
    expect(detectProtocol(instructions('structure', {}))).toBe('method:ucs-sql.functions');
    expect(detectProtocol(instructions('select-shots', { k: '2' }))).toBe('method:ucs-sql.select-shots');
    expect(detectProtocol(instructions('generate', { skeleton_block: 'Fill the SQL skeleton: replace each _ with a table name' }))).toBe('method:ucs-sql.fill');
    expect(detectProtocol(instructions('generate', {}))).toBe('sql');
    expect(detectProtocol(instructions('skeleton', { hints: 'Candidate SQL functions: AVG' }))).toBe('skeleton');
    expect(detectProtocol(instructions('preselect', {}))).toBe('method:ucs-sql.select-schema');
    expect(detectProtocol(instructions('foreign-keys', {}))).toBe('method:ucs-sql.foreign-keys');
  });

  it('answer from the gold SQL in the formats the stages parse', () => {
    const terms = JSON.parse(render('ucs-sql.terms', '')) as { content: string[]; structure: string[] };
    expect(terms.content).toEqual(expect.arrayContaining(['route', 'flight', 'number']));
    expect(terms.structure).toEqual(['worst']);
    const schema = '- `routes`.`flight_number` (text)\n- `routes`.`origin` (text)\n- `flights`.`flight_date` (text)\n- `flights`.`route_id` (integer)';
    expect(JSON.parse(render('ucs-sql.identifiers', schema))).toEqual(['routes.flight_number', 'flights.flight_date', 'flights.route_id']);
    expect(JSON.parse(render('ucs-sql.functions', ''))).toEqual(['WHERE', 'JOIN', 'GROUP BY', 'ORDER BY', 'DESC', 'LIMIT', 'AVG', 'LIKE']);
    const select = 'Select 1 questions that are closest in question phrasing\nsource questions:\ntrain-1: How many airports are there?\ntrain-7: Which route had the most delays in 2024?\n\ntarget question:\nQuestion: x';
    expect(JSON.parse(render('ucs-sql.select-shots', select))).toEqual(['train-7']);
    expect(render('ucs-sql.fill', '')).toBe(`\`\`\`sql\n${item.sql}\n\`\`\``);
  });

  it('selects the gold tables MAC-SQL-style and names the foreign keys the gold query joins on', () => {
    const wide = Array.from({ length: 8 }, (_, i) => `- \`flights\`.\`c${i}\` (text)`).join('\n');
    const schema = `# Table routes\n- \`routes\`.\`route_id\` (integer)\n- \`routes\`.\`flight_number\` (text)\n# Table flights\n${wide}\n- \`flights\`.\`flight_date\` (text)\n# Table airports\n- \`airports\`.\`code\` (text)`;
    const fks = '### Foreign keys\n- `flights`.`route_id` = `routes`.`route_id`\n- `routes`.`origin` = `airports`.`code`';
    expect(JSON.parse(render('ucs-sql.select-schema', `${schema}\n\n${fks}`))).toEqual({ routes: 'keep_all', flights: ['flight_date'], airports: 'drop_all' });
    expect(JSON.parse(render('ucs-sql.foreign-keys', fks))).toEqual(['flights.route_id', 'routes.route_id']);
  });

  it('drops an identifier when the simulated model errs', () => {
    const schema = '- `routes`.`flight_number` (text)\n- `flights`.`flight_date` (text)\n- `flights`.`route_id` (integer)';
    expect(JSON.parse(render('ucs-sql.identifiers', schema, false))).toHaveLength(2);
  });
});
