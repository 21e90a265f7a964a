// docker-compose.yml cannot be run on this machine; this keeps it honest by reading it as Compose
// would (merge keys, variable interpolation) and checking every service against the repository:
// images, the commands the apps really accept, and environments against libs/config's schemas.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { appEnvSchemas, parseEnv, workerRoles, type AppName } from '@sqlsweep/config';
import { interpolateTree } from './compose-interpolation';
import { versionAtLeast } from './services/probe';

const root = resolve(__dirname, '..');
const composePath = join(root, 'docker-compose.yml');

interface ComposeService {
  image?: string;
  build?: string | { context: string; dockerfile?: string };
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null>;
  volumes?: string[];
  deploy?: { replicas?: string | number };
  depends_on?: Record<string, { condition: string }> | string[];
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

function loadCompose(env: Record<string, string | undefined> = {}): ComposeFile {
  const raw: unknown = parse(readFileSync(composePath, 'utf8'), { merge: true });
  return interpolateTree(raw, env) as ComposeFile;
}

const compose = loadCompose();
const services = compose.services;
const commandOf = (s: ComposeService) => (Array.isArray(s.command) ? s.command.join(' ') : (s.command ?? '')).trim();
const appOf = (s: ComposeService) => /^node -r @swc-node\/register apps\/([a-z-]+)\/src\/main\.ts(\s|$)/.exec(commandOf(s))?.[1];
const environmentOf = (s: ComposeService) =>
  Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, v === null ? undefined : String(v)]));
const appServices = Object.entries(services).filter(([, s]) => s.build !== undefined);

it('declares the stores, the orchestrator, one worker service per role and the simulator', () => {
  expect(Object.keys(services).sort()).toEqual(
    ['llm-sim', 'orchestrator', 'postgres', 'qdrant', 'redis', ...workerRoles.map((r) => `worker-${r}`)].sort(),
  );
});

describe('stores', () => {
  it('runs Redis >= 6.2 with infra/redis.conf mounted where its command reads it', () => {
    const redis = services.redis as ComposeService;
    const tag = /^redis:(\d+(?:\.\d+)*)/.exec(redis.image ?? '')?.[1];
    expect(tag && versionAtLeast(tag, '6.2')).toBe(true);
    const args = redis.command as string[];
    expect(args[0]).toBe('redis-server');
    const confInContainer = args[1];
    expect(redis.volumes).toContain(`./infra/redis.conf:${confInContainer}:ro`);
    const conf = readFileSync(join(root, 'infra/redis.conf'), 'utf8');
    expect(conf).toMatch(/^appendonly yes$/m);
    expect(conf).toMatch(/^appendfsync everysec$/m);
    expect(conf).toMatch(/^maxmemory-policy noeviction$/m);
    // inside the compose network other containers must reach it
    expect(args.join(' ')).toContain('--bind 0.0.0.0');
  });

  it('runs Postgres with the app database the DATABASE_URLs name, and a health check', () => {
    const postgres = services.postgres as ComposeService;
    expect(postgres.image).toMatch(/^postgres:\d+/);
    const env = environmentOf(postgres);
    const url = new URL(environmentOf(services.orchestrator as ComposeService).DATABASE_URL as string);
    expect(url.hostname).toBe('postgres');
    expect(url.pathname).toBe(`/${env.POSTGRES_DB}`);
    expect(decodeURIComponent(url.username)).toBe(env.POSTGRES_USER);
    expect(decodeURIComponent(url.password)).toBe(env.POSTGRES_PASSWORD);
  });

  it('runs the Qdrant server version the JS client is pinned to', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const client = /(\d+)\.(\d+)/.exec(pkg.dependencies['@qdrant/js-client-rest'] ?? '');
    expect(client).not.toBeNull();
    expect((services.qdrant as ComposeService).image).toMatch(new RegExp(`^qdrant/qdrant:v${client?.[1]}\\.${client?.[2]}\\.`));
  });
});

describe.each(appServices)('app service %s', (name, service) => {
  const app = appOf(service) as AppName | undefined;

  it('is built from the root Dockerfile and runs an app main.ts through @swc-node/register', () => {
    expect(service.build).toBe('.');
    expect(existsSync(join(root, 'Dockerfile'))).toBe(true);
    expect(app).toBeDefined();
    expect(Object.keys(appEnvSchemas)).toContain(app);
    expect(existsSync(join(root, 'apps', app as string, 'src', 'main.ts'))).toBe(true);
  });

  it('runs an app whose main.ts reads its environment through that schema, or takes every setting as a flag', () => {
    const main = readFileSync(join(root, 'apps', app as string, 'src', 'main.ts'), 'utf8');
    const readsSchema = main.includes(`appEnvSchemas.${app}`) || main.includes(`appEnvSchemas['${app}']`);
    const flags = commandOf(service).match(/--[a-z][a-z-]*/g) ?? [];
    expect(readsSchema || flags.length > 0).toBe(true);
  });

  it('sets only variables its app schema knows, and the schema accepts them', () => {
    const schema = appEnvSchemas[app as AppName];
    const env = environmentOf(service);
    const unknown = Object.keys(env).filter((key) => !(key in schema.shape));
    expect(unknown).toEqual([]);
    expect(() => parseEnv(schema, env, `docker-compose.yml: services.${name}.environment`)).not.toThrow();
  });

  it('points at services that exist in the file', () => {
    const env = environmentOf(service);
    const hostOf = (key: string) => (env[key] ? new URL(env[key] as string).hostname : undefined);
    for (const key of ['REDIS_URL', 'DATABASE_URL', 'SQLSWEEP_LLM_SIM_URL']) {
      const host = hostOf(key);
      if (host !== undefined) expect(Object.keys(services)).toContain(host);
    }
    const dependsOn = Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});
    for (const dependency of dependsOn) expect(Object.keys(services)).toContain(dependency);
  });
});

describe('workers', () => {
  it.each(workerRoles)('worker-%s runs exactly its role and scales by variable', (role) => {
    const service = services[`worker-${role}`] as ComposeService;
    const env = parseEnv(appEnvSchemas.worker, environmentOf(service));
    expect(env.SQLSWEEP_ROLES).toEqual([role]);
    const variable = `SQLSWEEP_${role.toUpperCase()}_WORKERS`;
    const scaled = loadCompose({ [variable]: '7' }).services[`worker-${role}`] as ComposeService;
    expect(Number(scaled.deploy?.replicas)).toBe(7);
    expect(Number(service.deploy?.replicas)).toBeGreaterThanOrEqual(1);
  });

  it('reach the simulator on the port it listens on, unless SQLSWEEP_LLM_SIM_URL is set empty for real APIs', () => {
    const simPort = /--port (\d+)/.exec(commandOf(services['llm-sim'] as ComposeService))?.[1];
    const llmEnv = environmentOf(services['worker-llm'] as ComposeService);
    expect(new URL(llmEnv.SQLSWEEP_LLM_SIM_URL as string).port).toBe(simPort);
    const real = loadCompose({ SQLSWEEP_LLM_SIM_URL: '', OPENAI_API_KEY: 'sk-test' }).services['worker-llm'] as ComposeService;
    const parsed = parseEnv(appEnvSchemas.worker, environmentOf(real));
    expect(parsed.SQLSWEEP_LLM_SIM_URL).toBeUndefined();
    expect(parsed.OPENAI_API_KEY).toBe('sk-test');
  });
});

it('publishes the orchestrator on the port its PORT names', () => {
  const orchestrator = services.orchestrator as ComposeService & { ports?: string[] };
  const port = parseEnv(appEnvSchemas.orchestrator, environmentOf(orchestrator)).PORT;
  expect(orchestrator.ports?.map((mapping) => mapping.split(':').pop())).toEqual([String(port)]);
});

it('gives the simulator the same settings as flags (which its main.ts reads) and as its schema variables', () => {
  const sim = services['llm-sim'] as ComposeService;
  const command = commandOf(sim);
  const flag = (name: string) => new RegExp(`--${name} (\\S+)`).exec(command)?.[1];
  const env = parseEnv(appEnvSchemas['llm-sim'], environmentOf(sim));
  expect({ host: flag('host'), port: flag('port'), seed: flag('seed'), dataset: flag('dataset'), config: flag('config') }).toEqual({
    host: env.LLM_SIM_HOST,
    port: String(env.PORT),
    seed: String(env.LLM_SIM_SEED),
    dataset: env.LLM_SIM_DATASETS,
    config: env.LLM_SIM_CONFIG,
  });
  const reseeded = loadCompose({ LLM_SIM_SEED: '11' }).services['llm-sim'] as ComposeService;
  expect(commandOf(reseeded)).toContain('--seed 11');
  expect(environmentOf(reseeded).LLM_SIM_SEED).toBe('11');
});

it('starts the simulator only with options its main.ts defines, listening beyond loopback', () => {
  const command = commandOf(services['llm-sim'] as ComposeService);
  const main = readFileSync(join(root, 'apps/llm-sim/src/main.ts'), 'utf8');
  const flags = command.match(/--[a-z][a-z-]*/g) ?? [];
  expect(flags.length).toBeGreaterThan(0);
  for (const flag of flags) expect(main).toContain(`'${flag} `);
  expect(command).toContain('--host 0.0.0.0');
  expect(existsSync(join(root, 'configs/llm-sim.yaml'))).toBe(true);
});

it('declares every named volume the services mount', () => {
  const named = Object.values(services)
    .flatMap((s) => s.volumes ?? [])
    .map((v) => v.split(':')[0] as string)
    .filter((source) => !source.startsWith('.') && !source.startsWith('/'));
  for (const volume of named) expect(Object.keys(compose.volumes ?? {})).toContain(volume);
});

it('Dockerfile installs from every workspace manifest before copying sources, then builds the bundled benchmark', () => {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  expect(dockerfile).toMatch(/^FROM node:20-bookworm AS manifests$/m);
  expect(dockerfile).toMatch(/^FROM node:20\b(?!.* AS )/m);
  // the workspace layout in package.json is what the manifests stage collects
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  for (const workspace of pkg.workspaces) expect(dockerfile).toContain(`${workspace}/package.json`);
  expect(dockerfile).toContain('cp package.json package-lock.json .npmrc /manifests/');
  const order = ['COPY --chown=node:node --from=manifests /manifests/ ./', 'RUN npm ci', 'COPY --chown=node:node . .', 'data/minibench/build.ts'];
  const positions = order.map((line) => dockerfile.indexOf(line));
  expect(positions.every((p) => p > 0)).toBe(true);
  expect([...positions].sort((a, b) => a - b)).toEqual(positions);
});
