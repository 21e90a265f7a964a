import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { birdPredictionFile, goldFile, NO_PREDICTION_SQL, spiderPredictionFile } from '@sqlsweep/orchestration';
import { readBirdPredictions, readGoldFile, readSpiderPredictions } from '@sqlsweep/sql-sandbox';
// nx-ignore-next-line
import { TempDirs } from '@sqlsweep/testing';

/** The test file's temporary folders, removed once its tests are done. */
const temp = new TempDirs();
afterAll(() => temp.removeAll());

const lines = [
  { sql: 'SELECT name\nFROM singer\tWHERE age > 3', dbId: 'concert_singer' },
  { sql: null, dbId: 'pets_1' },
  { sql: 'SELECT 1', dbId: 'pets_1' },
];

function write(text: string): string {
  const file = join(temp.make('export-files-'), 'f');
  writeFileSync(file, text);
  return file;
}

/** The exported files read back by the evaluator's own readers of the official formats. */
describe('exported prediction files through the evaluator readers', () => {
  it('Spider: one prediction per item, a trailing missing prediction kept', () => {
    const missingLast = [lines[0], lines[2], lines[1]];
    expect(readSpiderPredictions(write(spiderPredictionFile(missingLast)))).toEqual(['SELECT name FROM singer WHERE age > 3', 'SELECT 1', NO_PREDICTION_SQL]);
  });

  it('BIRD: every index present with its db id', () => {
    expect(readBirdPredictions(write(birdPredictionFile(lines)))).toEqual([
      { sql: 'SELECT name FROM singer WHERE age > 3', dbId: 'concert_singer' },
      { sql: NO_PREDICTION_SQL, dbId: 'pets_1' },
      { sql: 'SELECT 1', dbId: 'pets_1' },
    ]);
  });

  it('gold: split at the last tab', () => {
    expect(readGoldFile(write(goldFile([{ goldSql: "SELECT 'a\tb'", dbId: 'x' }])))).toEqual([{ sql: "SELECT 'a b'", dbId: 'x' }]);
  });
});
