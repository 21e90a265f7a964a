import { z } from 'zod';
import { apiErrorSchema, apiRoutes, type ApiRoute } from '@sqlsweep/contracts';

type JsonSchema = Record<string, unknown>;

/** Named schemas (zod `.meta({ id })`) shared by every operation, as OpenAPI components. */
const components: Record<string, JsonSchema> = {};

/** Rewrites zod's local `#/$defs/X` references to `#/components/schemas/X`. */
function toComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponentRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', '#/components/schemas/') : toComponentRefs(v)]));
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _s, $defs, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  // A schema's input side (before defaults and transforms) differs from its output side: inputs get their own names.
  const named = (v: unknown) => (io === 'input'
    ? JSON.parse(JSON.stringify(toComponentRefs(v)).replace(/"#\/components\/schemas\/([A-Za-z]+)"/g, '"#/components/schemas/$1Input"'))
    : toComponentRefs(v)) as JsonSchema;
  for (const [id, def] of Object.entries($defs ?? {})) components[io === 'input' ? `${id}Input` : id] ??= named(def);
  return named(rest);
}

/** Follows one `$ref` into the components (for reading query parameters out of a named schema). */
function deref(schema: JsonSchema): JsonSchema {
  const ref = schema.$ref;
  return typeof ref === 'string' ? components[ref.replace('#/components/schemas/', '')] ?? schema : schema;
}

function parameters(route: ApiRoute): JsonSchema[] {
  const path = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  if (!route.query) return path;
  const q = deref(jsonSchema(route.query, 'input')) as { properties?: Record<string, JsonSchema>; required?: string[] };
  const query = Object.entries(q.properties ?? {}).map(([name, schema]) => ({ name, in: 'query', required: q.required?.includes(name) ?? false, schema }));
  return [...path, ...query];
}

/** Routes anyone may call, token or not (their controllers are marked @OpenRead). */
const openRoutes = new Set(['/health', '/access']);
/** Routes served by the schedules module: 503 when the orchestrator runs no schedules file. */
const scheduleRoute = (path: string) => path === '/alerts' || path.startsWith('/schedules');

/**
 * The status codes a route answers, as the handlers and the errors filter produce them: NestJS answers a POST 201
 * unless the route says otherwise (`status`); 400 needs something to validate (path, query or body); 401 every route
 * behind the token; 404 a path naming something; 409 a short run id several runs start with; 503 Postgres or Redis
 * away (and the schedule routes without schedules). orchestrator.int-spec (openapi codes) checks each against real answers.
 */
function responses(route: ApiRoute, ok: JsonSchema, errorContent: JsonSchema): Record<string, JsonSchema> {
  const success = String(route.status ?? (route.method === 'post' ? 201 : 200));
  const err = (description: string) => ({ description, content: errorContent });
  const hasPath = route.path.includes('{');
  return {
    [success]: ok,
    ...(hasPath || route.query || route.body ? { 400: err('Invalid request: the field and the reason') } : {}),
    ...(openRoutes.has(route.path) ? {} : { 401: err('Missing or wrong bearer token') }),
    ...(hasPath ? { 404: err('Not found') } : {}),
    ...(route.path.includes('{runId}') ? { 409: err('A short run id that several runs start with: give more digits') } : {}),
    503: err(scheduleRoute(route.path) ? 'No schedules file, or Postgres or Redis cannot be reached' : 'Postgres or Redis cannot be reached right now'),
  };
}

/** OpenAPI 3.1 document of the REST API, generated from the zod contracts in @sqlsweep/contracts. */
export function openApiDocument(): JsonSchema {
  const errorContent = { 'application/json': { schema: jsonSchema(apiErrorSchema, 'output') } };
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of apiRoutes) {
    const ok = route.response
      ? { description: 'OK', content: { 'application/json': { schema: jsonSchema(route.response, 'output') } } }
      : { description: 'A file download', content: { 'text/plain': { schema: { type: 'string' } } } };
    (paths[`/api${route.path}`] ??= {})[route.method] = {
      summary: route.summary,
      operationId: `${route.method}${route.path.replace(/\{(\w+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)/g, (_m, c: string) => c.toUpperCase())}`,
      parameters: parameters(route),
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } } : {}),
      security: route.changesState ? [{ bearer: [] }] : [{}, { bearer: [] }],
      responses: responses(route, ok, errorContent),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'sqlsweep orchestrator API', version: '1.0.0', description: 'Runs, results, comparisons and exports of text-to-SQL sweeps. Results produced with the LLM simulator carry `simulated: true`.' },
    components: { schemas: components, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'SQLSWEEP_API_TOKEN: needed for every route but /api/health, /metrics and this document, reads included unless SQLSWEEP_OPEN_READS=1' } } },
    paths,
  };
}
