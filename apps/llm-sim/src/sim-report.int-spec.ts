import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLlmSimulator, type LlmSimulatorHandle } from './server';
import { DEFAULT_SIM_CONFIG_FILE } from './sim-config';
import { BIRD_SAMPLE, sqlOf } from './testing/sim-fixtures';

interface BirdItem { question: string; evidence: string; SQL: string; db_id: string }
const bird = JSON.parse(readFileSync(join(BIRD_SAMPLE, 'dev.json'), 'utf8')) as BirdItem[];
// "What's Angela Sanders's major?": SELECT T2.major_name FROM member AS T1 INNER JOIN major AS T2 ON ...
const item = bird.find((b) => b.question === "What's Angela Sanders's major?")!;
const MEMBER = 'CREATE TABLE member (\n  member_id TEXT,\n  first_name TEXT,\n  last_name TEXT,\n  link_to_major TEXT\n);';
const MAJOR = 'CREATE TABLE major (\n  major_id TEXT,\n  major_name TEXT\n);';
const ATTENDANCE = 'CREATE TABLE attendance (\n  link_to_event TEXT,\n  link_to_member TEXT\n);';
const user = (ddl: string): string => `### Database schema\n${ddl}\n\nEvidence: ${item.evidence}\nQuestion: ${item.question}`;
const system = 'You are an expert SQLite developer. Answer with the query in a ```sql fenced block and nothing else.';

/** Every answer says which probability it was drawn with and from which prompt features (issue 19), in both dialects and in batches. */
describe('the simulator reports its features and probability', () => {
  let sim: LlmSimulatorHandle;
  beforeAll(async () => {
    sim = await startLlmSimulator({ datasetDirs: [BIRD_SAMPLE], seed: 5, configFile: DEFAULT_SIM_CONFIG_FILE });
  });
  afterAll(() => sim.close());

  const post = (path: string, body: unknown) =>
    fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k', 'x-api-key': 'k' }, body: JSON.stringify(body) });

  it('OpenAI dialect: x-sim-probability and x-sim-features; a prompt lacking a gold table is answered wrong with a table it shows', async () => {
    const reachable = await post('/v1/chat/completions', { model: 'sim-strong', temperature: 0, messages: [{ role: 'system', content: system }, { role: 'user', content: user(`${MEMBER}\n\n${MAJOR}`) }] });
    expect(reachable.status).toBe(200);
    const p = Number(reachable.headers.get('x-sim-probability'));
    expect(p).toBeGreaterThan(0.5);
    expect(JSON.parse(reachable.headers.get('x-sim-features')!)).toMatchObject({ goldReachable: true, schemaRecall: 1, noiseTables: 0, evidence: true, hardness: 'easy' });

    const missing = await post('/v1/chat/completions', { model: 'sim-strong', temperature: 0, messages: [{ role: 'system', content: system }, { role: 'user', content: user(`${MEMBER}\n\n${ATTENDANCE}`) }] });
    expect(missing.headers.get('x-sim-probability')).toBe('0');
    expect(JSON.parse(missing.headers.get('x-sim-features')!)).toMatchObject({ goldReachable: false, noiseTables: 1 });
    expect(missing.headers.get('x-sqlsweep-sim-corruption')).toBe('wrong_table');
    const sql = sqlOf(((await missing.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content);
    expect(sql).toMatch(/\battendance\b/);
    expect(sql).not.toMatch(/\bmajor\b/);
  });

  it('Anthropic dialect and Message Batches: the same report, the batch result line as `sim`', async () => {
    const params = { model: 'claude-sim', max_tokens: 200, system, messages: [{ role: 'user', content: user(`${MEMBER}\n\n${MAJOR}\n\n${ATTENDANCE}`) }] };
    const live = await post('/v1/messages', params);
    expect(live.status).toBe(200);
    const features = JSON.parse(live.headers.get('x-sim-features')!) as Record<string, unknown>;
    expect(features).toMatchObject({ goldReachable: true, noiseTables: 1, examples: 0 });
    const probability = Number(live.headers.get('x-sim-probability'));

    const created = (await (await post('/v1/messages/batches', { requests: [{ custom_id: 'a', params }] })).json()) as { id: string };
    let results_url: string | null = null;
    for (let i = 0; i < 100 && !results_url; i++) {
      await new Promise((r) => setTimeout(r, 50));
      ({ results_url } = (await (await fetch(`${sim.url}/v1/messages/batches/${created.id}`, { headers: { 'x-api-key': 'k' } })).json()) as { results_url: string | null });
    }
    const line = JSON.parse((await (await fetch(results_url!, { headers: { 'x-api-key': 'k' } })).text()).trim()) as { sim: { probability: number; features: unknown } };
    expect(line.sim).toEqual({ probability, features });
  });
});
