import { trainSetOutput } from '@sqlsweep/pipelines';
import { stageInputs, type Stored } from './stage-inputs';

const results = (entries: Record<string, unknown>) => new Map<string, Stored>(Object.entries(entries).map(([k, output]) => [k, { output }]));

describe('stageInputs', () => {
  const members = { t1: 'key-t1', t2: 'key-t2' };
  const store = results({ 'key-q': { question: 'q' }, 'key-set': trainSetOutput(members), 'key-t1': { tables: ['a'] }, 'key-t2': { tables: ['b'] } });
  const reads: string[][] = [];
  const read = async (keys: string[]) => {
    reads.push(keys);
    return new Map([...store].filter(([k]) => keys.includes(k)));
  };

  it('gives each input its output by name, and a training set one entry per member, read after the set', async () => {
    reads.length = 0;
    const listed = { question: 'key-q', 'trainContent[*]': 'key-set' };
    expect(await stageInputs(listed, results({ 'key-q': { question: 'q' }, 'key-set': trainSetOutput(members) }), read)).toEqual({
      inputs: { question: { question: 'q' }, 'trainContent/t1': { tables: ['a'] }, 'trainContent/t2': { tables: ['b'] } },
    });
    expect(reads).toEqual([['key-t1', 'key-t2']]);
  });

  it('names the first input missing: a listed one, or a member of a set by the name the stage reads it under', async () => {
    expect(await stageInputs({ question: 'key-gone' }, store, read)).toEqual({ missing: { name: 'question', key: 'key-gone' } });
    const partial = results({ 'key-set': trainSetOutput({ t1: 'key-t1', t3: 'key-t3' }) });
    expect(await stageInputs({ 'trainContent[*]': 'key-set' }, partial, read)).toEqual({ missing: { name: 'trainContent/t3', key: 'key-t3' } });
  });

  it('reads nothing for a stage without training sets', async () => {
    reads.length = 0;
    expect(await stageInputs({ question: 'key-q' }, store, read)).toEqual({ inputs: { question: { question: 'q' } } });
    expect(reads).toEqual([]);
  });
});
