import { join } from 'node:path';
import ts from 'typescript';

/**
 * The compile-time half of defineStage: a typo in a knob, a stage or an input, or a wiring of the wrong type, must
 * fail `tsc`. Each case below is a small module compiled against the real libs (in memory, beside this file); the
 * first must compile clean, so a broken harness cannot pass the rest.
 */
const here = __dirname;
const root = join(here, '..', '..', '..');
const prelude = `
import { definePipeline, from, slot, stagesOf, type StageRun } from './index';
import { evaluateStage, goldStage, type GeneratedSql } from './stages/common';
const rb = stagesOf('rb-sql');
const tables = rb.compute({ name: 't.tables', role: 'retrieval', version: 1, reads: ['theta'], run: async (ctx) => ({ output: { kept: ctx.params.theta * 2 } }) });
const draft = rb.compute({ name: 't.draft', role: 'sql', version: 1, inputs: { tables: from(tables) },
  run: async (ctx): Promise<StageRun<GeneratedSql>> => ({ output: { sql: String(ctx.inputs.tables.kept) } }) });
const count = rb.compute({ name: 't.count', role: 'sql', version: 1, run: async () => ({ output: 3 }) });
`;

const cases: Array<{ what: string; code: string; error: RegExp | null }> = [
  {
    what: 'a well-typed pipeline',
    code: `definePipeline('rb-sql', { graph: (g, v) => { g.add(goldStage); g.add(tables); const d = g.add(draft); if (v.params.shots > 0) g.add(evaluateStage, { prediction: d }); } });`,
    error: null,
  },
  { what: 'a knob typo in reads', code: `rb.compute({ name: 'x', role: 'sql', version: 1, reads: ['thetaa'], run: async () => ({ output: 1 }) });`, error: /"thetaa"/ },
  { what: 'a knob not read', code: `rb.compute({ name: 'x', role: 'sql', version: 1, reads: ['mu'], run: async (ctx) => ({ output: ctx.params.theta }) });`, error: /Property 'theta' does not exist/ },
  { what: 'a knob of another method', code: `stagesOf('zero-shot').compute({ name: 'x', role: 'sql', version: 1, reads: ['theta'], run: async () => ({ output: 1 }) });`, error: /"theta"/ },
  { what: 'a stage name typo in a graph', code: `definePipeline('rb-sql', { graph: (g) => { g.add(tabels); } });`, error: /Cannot find name 'tabels'/ },
  { what: 'an input name typo', code: `rb.compute({ name: 'x', role: 'sql', version: 1, inputs: { tables: from(tables) }, run: async (ctx) => ({ output: ctx.inputs.tabels }) });`, error: /Property 'tabels' does not exist/ },
  { what: 'an input used as the wrong type', code: `rb.compute({ name: 'x', role: 'sql', version: 1, inputs: { tables: from(tables) }, run: async (ctx) => ({ output: ctx.inputs.tables.kept.toUpperCase() }) });`, error: /toUpperCase/ },
  { what: 'an unwired slot', code: `definePipeline('rb-sql', { graph: (g) => { g.add(evaluateStage); } });`, error: /Expected 2-3 arguments|prediction/ },
  { what: 'a slot wired to a stage of another output type', code: `definePipeline('rb-sql', { graph: (g) => { g.add(evaluateStage, { prediction: count }); } });`, error: /not assignable/ },
  { what: 'a stage whose knob the pipeline lacks', code: `definePipeline('zero-shot', { graph: (g) => { g.add(tables); } });`, error: /the pipeline lacks a parameter this stage reads/ },
  { what: 'an input left out that is not a train-items input', code: `definePipeline('rb-sql', { graph: (g) => { g.add(tables); g.add(draft, {}, { without: ['tables'] }); } });`, error: /not assignable to type 'never'/ },
  { what: 'a knob compared with a value it cannot hold', code: `definePipeline('rb-sql', { graph: (_g, v) => { if (v.params.shotSelection === 'randm') return; } });`, error: /no overlap/ },
];

/** Compiles every case in one program (one in-memory module each, beside this file): its errors, per case. */
function compileAll(codes: string[]): string[][] {
  const files = codes.map((_c, i) => join(here, `__typed-stages-case-${i}.ts`));
  const sources = new Map(files.map((f, i) => [f, `${prelude}\n${codes[i]}\nexport {};\n`]));
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const host = ts.createCompilerHost({ ...options, noEmit: true });
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => sources.get(name) ?? readFile(name);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => sources.has(name) || fileExists(name);
  const program = ts.createProgram(files, { ...options, noEmit: true }, host);
  return files.map((f) => ts.getPreEmitDiagnostics(program, program.getSourceFile(f)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')));
}

describe('typed stages at compile time', () => {
  const errors = compileAll(cases.map((c) => c.code));
  it.each(cases.map((c, i) => ({ ...c, errors: errors[i] })))('$what', ({ error, errors: found }) => {
    if (error === null) expect(found).toEqual([]);
    else expect(found.join('\n')).toMatch(error);
  });
});
