import { readFileSync } from 'node:fs';
import { CronExpressionParser } from 'cron-parser';
import { isMap, isScalar, parseDocument, type Document } from 'yaml';
import { z } from 'zod';

const scheduleNameRegex = /^[a-z0-9][a-z0-9._-]*$/i;

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const scheduleSchema = z
  .object({
    cron: z.string({ error: 'expected a cron expression such as "0 2 * * *"' }).min(1),
    timezone: z.string().refine(isTimeZone, { message: 'not an IANA time zone (e.g. "UTC", "Europe/Berlin")' }).default('UTC'),
    sweep: z.string({ error: 'expected the path of a sweep config, e.g. configs/sweeps/demo.yaml' }).min(1),
  })
  .strict()
  .superRefine((s, ctx) => {
    try {
      CronExpressionParser.parse(s.cron, { tz: s.timezone });
    } catch (e) {
      ctx.addIssue({ code: 'custom', path: ['cron'], message: `invalid cron expression "${s.cron}": ${(e as Error).message}` });
    }
  });

export const schedulesFileSchema = z
  .object({
    alerts: z.object({ webhookUrl: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }).optional() }).strict().default({}),
    schedules: z
      .record(z.string().regex(scheduleNameRegex, 'schedule names: letters, digits, ".", "_" and "-" only'), scheduleSchema)
      .default({}),
  })
  .strict();

export type ScheduleSpec = z.output<typeof scheduleSchema>;
export type SchedulesFile = z.output<typeof schedulesFileSchema>;

export class SchedulesFileError extends Error {
  constructor(readonly source: string, readonly path: string, readonly line: number | undefined, readonly reason: string) {
    super(`${source}${line ? `:${line}` : ''}: ${path ? `${path}: ` : ''}${reason}`);
    this.name = 'SchedulesFileError';
  }
}

/** 1-based line of the deepest key along `path` that exists in the YAML document. */
function lineOf(doc: Document, text: string, path: ReadonlyArray<PropertyKey>): number | undefined {
  let node: unknown = doc.contents;
  let offset: number | undefined;
  for (const segment of path) {
    if (!isMap(node)) break;
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
    if (!pair || !isScalar(pair.key) || !pair.key.range) break;
    offset = pair.key.range[0];
    node = pair.value;
  }
  return offset === undefined ? undefined : text.slice(0, offset).split('\n').length;
}

/** Parses a schedules file; every problem names the file, the line, the path inside it and the reason. */
export function parseSchedulesFile(text: string, source: string): SchedulesFile {
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    throw new SchedulesFileError(source, '', e.linePos?.[0].line, `invalid YAML: ${e.message.split('\n')[0]}`);
  }
  const result = schedulesFileSchema.safeParse(doc.toJS() ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue.path;
    const reason = issue.code === 'unrecognized_keys' ? `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}` : issue.message;
    const dotted = path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p))).join('.');
    throw new SchedulesFileError(source, dotted, lineOf(doc, text, path), reason);
  }
  return result.data;
}

export function loadSchedulesFile(path: string): SchedulesFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new SchedulesFileError(path, '', undefined, `cannot read the schedules file: ${(e as Error).message}`);
  }
  return parseSchedulesFile(text, path);
}

/** The next time a schedule fires after `after`. */
export function nextFireAt(spec: ScheduleSpec, after: Date = new Date()): Date {
  return CronExpressionParser.parse(spec.cron, { tz: spec.timezone, currentDate: after }).next().toDate();
}
