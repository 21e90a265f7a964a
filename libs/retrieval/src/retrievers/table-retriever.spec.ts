import type { ColumnSchema, DatabaseSchema } from '@sqlsweep/datasets';
import { tableText } from '../documents/builders';
import type { Encoder } from '../encoder/encoder';
import { openBundledEncoderFixture, type BundledEncoderFixture } from '../testing/test-encoder';
import { maxSim } from '../token-matrix';
import { buildSchemaIndexes } from './schema-indexes';
import { TableRetriever } from './table-retriever';

const column = (name: string, type = 'text', description?: string): ColumnSchema => ({ name, type, primaryKey: false, description, sampleValues: [] });

// A wide sensor table whose text passes 512 tokens, next to two small tables.
const wideColumns = Array.from({ length: 90 }, (_, i) => column(`sensor_reading_channel_${i}`, 'real'));
wideColumns.push(column('humidity_percent', 'real', 'relative humidity measured by the station'));
const database: DatabaseSchema = {
  dbId: 'weather',
  sqlitePath: '/dev/null',
  tables: [
    { name: 'station', columns: [column('station_id', 'integer'), column('station_name'), column('city'), column('elevation', 'real')] },
    { name: 'forecast', columns: [column('forecast_id', 'integer'), column('station_id', 'integer'), column('forecast_date', 'date'), column('rain_probability', 'real')] },
    { name: 'telemetry', columns: wideColumns },
  ],
};

describe('TableRetriever (RB-SQL TR + CR, large-table rule)', () => {
  let encoder: Encoder;
  let root: string;
  let fixture: BundledEncoderFixture;
  let retriever: TableRetriever;

  beforeAll(async () => {
    ({ encoder, root } = fixture = await openBundledEncoderFixture('tr'));
    const { indexes } = await buildSchemaIndexes(database, { encoder, indexRoot: root, datasetVersion: 'test' });
    retriever = new TableRetriever(encoder, database, indexes);
  });
  afterAll(() => fixture.close());

  it('detects tables whose text passes 512 tokens', () => {
    expect(encoder.countTokens(tableText('telemetry', wideColumns))).toBeGreaterThan(512);
    expect(retriever.isLarge('telemetry')).toBe(true);
    expect(retriever.isLarge('station')).toBe(false);
  });

  it('ranks the table a question is about first and keeps only tables above θ', async () => {
    const scored = await retriever.scoreTables('Which city has the station with the highest elevation?');
    expect(scored[0].table).toBe('station');
    const theta = (scored[0].score + scored[1].score) / 2;
    const kept = await retriever.retrieveTables('Which city has the station with the highest elevation?', theta);
    expect(kept.tables.map((t) => t.table)).toEqual(['station']);
    expect(kept.fellBack).toBe(false);
  });

  it('keeps the best table alone, marked as a fall-back, when no table passes θ', async () => {
    const question = 'Which city has the station with the highest elevation?';
    const [best] = await retriever.scoreTables(question);
    const kept = await retriever.retrieveTables(question, best.score + 1);
    expect(kept).toEqual({ tables: [best], fellBack: true });
  });

  it('shortens a large table to the columns above μ\' and scores the shortened text', async () => {
    const question = 'What was the average humidity percent measured by each station?';
    const muPrime = 5;
    const scored = await retriever.scoreTables(question, muPrime);
    const telemetry = scored.find((t) => t.table === 'telemetry');
    expect(telemetry?.shortenedTo).toContain('humidity_percent');
    expect(telemetry?.shortenedTo).toEqual(['humidity_percent']);
    const [query] = await encoder.encodeQueries([question]);
    const kept = wideColumns.filter((c) => telemetry?.shortenedTo?.includes(c.name));
    const [shortened] = await encoder.encodeDocuments([tableText('telemetry', kept)]);
    expect(telemetry?.score).toBeCloseTo(maxSim(query, shortened), 5);
  });

  it('CR keeps the columns of the kept tables above μ', async () => {
    const columns = await retriever.retrieveColumns('rain probability forecast date', ['forecast'], 1.5);
    expect(columns.map((c) => c.payload.column)).toEqual(expect.arrayContaining(['rain_probability', 'forecast_date']));
    expect(columns.every((c) => c.payload.table === 'forecast' && c.score > 1.5)).toBe(true);
  });
});
