import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, expandVariants, parseSweepConfig, type VariantSpec } from '../index';
import { notPaperConfigs, paperSettings, paperTables, type PaperRow } from './paper-tables';

const sweepsDir = join(__dirname, '..', '..', '..', '..', 'configs', 'sweeps');
const configFiles = readdirSync(sweepsDir).filter((f) => f.endsWith('.yaml')).sort();

/** The distinct experiments of a sweep: models and repeats run each one several times, they do not add rows. */
function experiments(variants: VariantSpec[]): VariantSpec[] {
  const byParams = new Map<string, VariantSpec>();
  for (const v of variants) byParams.set(canonicalJson({ pipeline: v.pipeline, params: v.params }), v);
  return [...byParams.values()];
}

function matches(row: PaperRow, variant: VariantSpec): boolean {
  const params = variant.params as Record<string, unknown>;
  return row.pipeline === variant.pipeline && Object.entries(row.knobs).every(([knob, value]) => canonicalJson(params[knob]) === canonicalJson(value));
}

const describeKnobs = (v: VariantSpec) => `${v.label}: ${canonicalJson(v.params)}`;

describe('configs/sweeps: every config is a paper table or says why not', () => {
  it('has a paper table for each config and a config for each paper table', () => {
    expect(configFiles.filter((f) => !(f in paperTables) && !(f in notPaperConfigs))).toEqual([]);
    expect(Object.keys(paperTables).filter((f) => !configFiles.includes(f))).toEqual([]);
  });
});

describe.each(Object.entries(paperTables))('configs/sweeps/%s', (file, table) => {
  const text = configFiles.includes(file) ? readFileSync(join(sweepsDir, file), 'utf8') : '';
  const variants = () => experiments(expandVariants(parseSweepConfig(text, `configs/sweeps/${file}`)));

  it(`runs exactly the rows of ${table.source}: one variant per row, with the paper's knobs, nothing else`, () => {
    const found = variants();
    const problems: string[] = [];
    for (const row of table.rows) {
      const hits = found.filter((v) => matches(row, v));
      if (hits.length !== 1) {
        problems.push(`row "${row.row}" ${canonicalJson(row.knobs)} matches ${hits.length} variants${hits.length ? `: ${hits.map(describeKnobs).join('; ')}` : ''}`);
      }
    }
    for (const v of found) {
      if (!table.rows.some((row) => matches(row, v))) problems.push(`variant ${describeKnobs(v)} is no row of the paper's table`);
    }
    expect(problems).toEqual([]);
    expect(found).toHaveLength(table.rows.length);
  });

  it("keeps the paper's settings in every row that does not sweep them", () => {
    const departures = variants().flatMap((v) => {
      const row = table.rows.find((r) => matches(r, v));
      const params = v.params as Record<string, unknown>;
      return Object.entries(paperSettings[v.pipeline] ?? {})
        .filter(([knob, value]) => !(row && knob in row.knobs) && canonicalJson(params[knob]) !== canonicalJson(value))
        .map(([knob, value]) => `${v.label}: ${knob} = ${canonicalJson(params[knob])}, the paper's is ${canonicalJson(value)}`);
    });
    expect(departures).toEqual([]);
  });

  it("comments each row with the paper's numbers", () => {
    const commented = new Set(
      text.split('\n').filter((line) => line.trimStart().startsWith('#') || line.includes(' #'))
        .flatMap((line) => (line.slice(line.indexOf('#')).match(/\d+\.\d+/g) ?? []).map(Number)),
    );
    const missing = table.rows.flatMap((row) => row.paper.filter((n) => !commented.has(n.value)).map((n) => `${row.row}: ${n.dataset} ${n.metric} ${n.value}`));
    expect(missing).toEqual([]);
  });

  if (table.dataset) {
    it(`names the dataset ${table.dataset}`, () => {
      expect(parseSweepConfig(text, file).dataset).toBe(table.dataset);
    });
  }
});
