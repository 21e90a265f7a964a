import { birdPredictionFile, goldFile, NO_PREDICTION_SQL, spiderPredictionFile } from './prediction-files';
import { toCsv, toJsonl } from './result-tables';

const lines = [
  { sql: 'SELECT name\nFROM singer\tWHERE age > 3', dbId: 'concert_singer' },
  { sql: null, dbId: 'pets_1' },
  { sql: '   ', dbId: 'pets_1' },
];

describe('prediction files', () => {
  it('writes Spider predictions one query a line, flattened, a missing prediction as a failing statement', () => {
    expect(spiderPredictionFile(lines)).toBe(`SELECT name FROM singer WHERE age > 3\n${NO_PREDICTION_SQL}\n${NO_PREDICTION_SQL}\n`);
  });

  it('writes BIRD predictions as an object from index to SQL, the BIRD separator and the db id', () => {
    expect(JSON.parse(birdPredictionFile(lines))).toEqual({
      0: 'SELECT name FROM singer WHERE age > 3\t----- bird -----\tconcert_singer',
      1: `${NO_PREDICTION_SQL}\t----- bird -----\tpets_1`,
      2: `${NO_PREDICTION_SQL}\t----- bird -----\tpets_1`,
    });
  });

  it('writes gold lines as SQL, a tab and the db id', () => {
    expect(goldFile([{ goldSql: "SELECT 'a\tb'\nFROM t", dbId: 'x' }])).toBe("SELECT 'a b' FROM t\tx\n");
  });
});

describe('result tables', () => {
  it('quotes CSV fields holding commas, quotes or line breaks, and leaves nulls empty', () => {
    expect(toCsv([{ a: 'x,y', b: 'say "hi"', c: null, d: true }, { a: 'two\nlines', b: 1.5, c: 0, d: false }])).toBe(
      'a,b,c,d\r\n"x,y","say ""hi""",,true\r\n"two\nlines",1.5,0,false\r\n',
    );
  });

  it('writes a header even without rows when the columns are named', () => {
    expect(toCsv([], ['a', 'b'])).toBe('a,b\r\n');
  });

  it('writes one JSON document per line', () => {
    expect(toJsonl([{ a: 1 }, { b: 'x\ny' }]).split('\n').filter(Boolean).map((l) => JSON.parse(l))).toEqual([{ a: 1 }, { b: 'x\ny' }]);
  });
});
