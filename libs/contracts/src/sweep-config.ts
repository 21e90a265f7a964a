import { z } from 'zod';
import { parseDocument } from 'yaml';
import { pipelineGrids, pipelineNames, type KnobValue, type PipelineName } from './pipeline-params';

const nameRegex = /^[a-z0-9][a-z0-9._-]*$/i;

const pipelineEntrySchema = z
  .object({
    pipeline: z.string({ error: 'expected a pipeline name' }),
    label: z.string().regex(nameRegex).optional(),
    grid: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

export const sweepConfigSchema = z
  .object({
    name: z.string({ error: 'expected a name' }).regex(nameRegex, 'letters, digits, ".", "_" and "-" only'),
    description: z.string().optional(),
    dataset: z.string({ error: 'expected the name of a registered dataset' }).min(1),
    datasetVersion: z.string().optional(),
    split: z.enum(['dev', 'train']).default('dev'),
    items: z
      .object({
        limit: z.number().int().positive().optional(),
        offset: z.number().int().min(0).default(0),
        ids: z.array(z.string()).optional(),
        dbIds: z.array(z.string()).optional(),
        difficulty: z.array(z.enum(['simple', 'moderate', 'challenging'])).optional(),
      })
      .strict()
      .default({ offset: 0 }),
    models: z.array(z.string().min(1), { error: 'expected array of model names' }).min(1, 'name at least one model'),
    pipelines: z.array(pipelineEntrySchema, { error: 'expected array of pipelines' }).min(1, 'name at least one pipeline'),
    repeats: z.number().int().min(1).max(100).default(1),
    seed: z.number().int().default(0),
    /** LLM stages include it in their keys: a new namespace re-asks the model, everything else is reused. */
    cacheNamespace: z.string().max(200).default(''),
    /** `batch`: LLM stages go to the provider's batch API (cheaper, slower); `online`: one call per stage. */
    llmMode: z.enum(['online', 'batch']).default('online'),
    priority: z.enum(['interactive', 'nightly']).default('interactive'),
  })
  .strict();

export interface PipelineEntry {
  pipeline: PipelineName;
  label?: string;
  grid: Record<string, KnobValue[]>;
}
export type SweepConfig = Omit<z.output<typeof sweepConfigSchema>, 'pipelines'> & { pipelines: PipelineEntry[] };

export class SweepConfigError extends Error {
  constructor(
    readonly source: string,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${source}: ${path ? `${path}: ` : ''}${reason}`);
    this.name = 'SweepConfigError';
  }
}

/** `pipelines[1].grid.shots` from zod's path array. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((acc, part) => {
    if (typeof part === 'number') return `${acc}[${part}]`;
    return acc ? `${acc}.${String(part)}` : String(part);
  }, '');
}

function firstIssue(error: z.ZodError, prefix: ReadonlyArray<PropertyKey> = []): { path: string; reason: string } {
  const issue = error.issues[0];
  if (issue.code === 'unrecognized_keys') {
    return { path: formatPath([...prefix, ...issue.path]), reason: `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}` };
  }
  return { path: formatPath([...prefix, ...issue.path]), reason: issue.message };
}

/** The largest sweep config accepted, in bytes: a real one is a few KB; parsing far larger YAML takes seconds. */
export const MAX_SWEEP_CONFIG_BYTES = 1024 * 1024;

/** Aliases a config may expand (yaml's own default); an alias bomb stops here instead of filling memory. */
const MAX_YAML_ALIAS_COUNT = 100;

/** Refuses a config larger than MAX_SWEEP_CONFIG_BYTES, before any parsing. */
export function assertSweepConfigSize(bytes: number, source: string): void {
  if (bytes > MAX_SWEEP_CONFIG_BYTES) {
    throw new SweepConfigError(source, '', `${bytes.toLocaleString('en-US')} bytes is more than a sweep config may have (1 MiB, ${MAX_SWEEP_CONFIG_BYTES.toLocaleString('en-US')} bytes)`);
  }
}

function utf8Length(text: string): number {
  // Every UTF-16 code unit is at least one UTF-8 byte: a text longer than the cap is over it without encoding.
  return text.length > MAX_SWEEP_CONFIG_BYTES ? text.length : new TextEncoder().encode(text).length;
}

function parseYaml(text: string, source: string): unknown {
  try {
    const doc = parseDocument(text, { prettyErrors: true });
    if (doc.errors.length > 0) {
      const e = doc.errors[0];
      const where = e.linePos ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '';
      throw new SweepConfigError(source, where, `invalid YAML: ${e.message.split('\n')[0]}`);
    }
    return doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT });
  } catch (e) {
    if (e instanceof SweepConfigError) throw e;
    // yaml throws (not collects) for excessive aliases, and the stack can overflow on absurd nesting.
    throw new SweepConfigError(source, '', `invalid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** Parses and validates a sweep config; every error names the source, the path inside it, and the reason. */
export function parseSweepConfig(text: string, source: string): SweepConfig {
  assertSweepConfigSize(utf8Length(text), source);
  const raw = parseYaml(text, source);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new SweepConfigError(source, '', 'expected a mapping at the top level');
  }
  const parsed = sweepConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const { path, reason } = firstIssue(parsed.error);
    throw new SweepConfigError(source, path, reason);
  }
  const pipelines = parsed.data.pipelines.map((entry, index): PipelineEntry => {
    if (!(pipelineNames as string[]).includes(entry.pipeline)) {
      throw new SweepConfigError(
        source,
        `pipelines[${index}].pipeline`,
        `unknown pipeline "${entry.pipeline}" (known: ${pipelineNames.join(', ')})`,
      );
    }
    const name = entry.pipeline as PipelineName;
    const grid = pipelineGrids[name].safeParse(entry.grid);
    if (!grid.success) {
      const { path, reason } = firstIssue(grid.error, ['pipelines', index, 'grid']);
      throw new SweepConfigError(source, path, reason);
    }
    return { pipeline: name, label: entry.label, grid: grid.data as PipelineEntry['grid'] };
  });
  return { ...parsed.data, pipelines };
}
