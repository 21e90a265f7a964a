// The Kubernetes manifests cannot be applied on this machine (no cluster); this keeps them honest: rendered as
// `kubectl apply -k` would, checked against the pinned Kubernetes API schemas, and every sqlsweep container against
// the commands the apps accept and libs/config's environment schemas, as infra/docker-compose.spec.ts does for Compose.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appEnvSchemas, parseEnv, workerRoles, type AppName } from '@sqlsweep/config';
import { queueNames } from '@sqlsweep/queue';
import { containersOf, k8sDir, renderKustomization, type K8sObject, type RenderedObject } from './render';
import { schemaErrors, typeErrors } from './validate';

const root = join(k8sDir, '..', '..');
const layouts = ['base', 'overlays/keda', 'overlays/cloudnative-pg'];
const rendered = Object.fromEntries(layouts.map((l) => [l, renderKustomization(join(k8sDir, l))])) as Record<string, RenderedObject[]>;
const base = rendered.base.map((r) => r.object);
const named = (objects: K8sObject[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
type Container = ReturnType<typeof containersOf>[number] & {
  command?: string[];
  envFrom?: Array<{ configMapRef?: { name: string } }>;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }>;
};
const appOf = (c: Container) => /^node -r @swc-node\/register apps\/([a-z-]+)\/src\/main\.ts(\s|$)/.exec((c.command ?? []).join(' '))?.[1] as AppName | undefined;

/** The environment a container starts with, secrets standing for a value a user would put there. */
function environmentOf(objects: K8sObject[], c: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of c.envFrom ?? []) Object.assign(env, named(objects, 'ConfigMap', from.configMapRef!.name).data as Record<string, string>);
  const secretValues: Record<string, string> = { DATABASE_URL: 'postgres://sqlsweep:secret@postgres.example:5432/sqlsweep', uri: 'postgres://app:secret@sqlsweep-pg-rw:5432/sqlsweep' };
  for (const e of c.env ?? []) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef && !e.valueFrom.secretKeyRef.optional) env[e.name] = secretValues[e.valueFrom.secretKeyRef.key] ?? 'secret-value-from-the-cluster';
  }
  return env;
}

describe('Kubernetes manifests (infra/k8s)', () => {
  it.each(layouts)('%s renders to objects the pinned Kubernetes API schemas accept', (layout) => {
    expect(rendered[layout].length).toBeGreaterThan(0);
    expect(schemaErrors(rendered[layout])).toEqual([]);
  });

  // One TypeScript program for every layout and two broken copies (a compile takes seconds).
  const misspelt = structuredClone(named(base, 'Deployment', 'orchestrator'));
  (containersOf(misspelt)[0] as Record<string, unknown>).readinesProbe = {};
  const mistyped = structuredClone(named(base, 'Deployment', 'orchestrator'));
  (containersOf(mistyped)[0] as unknown as { ports: Array<{ containerPort: unknown }> }).ports[0].containerPort = '3000';
  const broken = [{ file: 'misspelt.yaml', object: misspelt }, { file: 'mistyped.yaml', object: mistyped }];
  let typeCheck: string[];
  beforeAll(() => { typeCheck = typeErrors([...layouts.flatMap((l) => rendered[l]), ...broken]); });

  it('defines no field the API lacks (the schemas alone let unknown fields through)', () => {
    expect(typeCheck.filter((e) => !/^(misspelt|mistyped)\.yaml/.test(e))).toEqual([]);
  });

  it('catches a misspelt field and a wrong type, so the checks above can fail', () => {
    expect(typeCheck.filter((e) => e.startsWith('misspelt.yaml')).join('\n')).toMatch(/readinesProbe"?' does not exist in type 'IContainer'/);
    expect(typeCheck.filter((e) => e.startsWith('mistyped.yaml')).join('\n')).toMatch(/'string' is not assignable to type 'number'/);
    expect(schemaErrors(broken).join('\n')).toMatch(/^mistyped\.yaml: .*containerPort must be integer/m);
  });

  it('runs every app with a command it accepts and an environment its schema accepts', () => {
    for (const layout of layouts) {
      const objects = rendered[layout].map((r) => r.object);
      const apps = objects.flatMap((o) => containersOf(o).filter((c) => c.image.startsWith('sqlsweep')).map((c) => ({ o, c: c as Container })));
      expect(apps.map(({ o }) => o.metadata.name).sort()).toEqual(['llm-sim', 'orchestrator', 'worker-llm', 'worker-retrieval', 'worker-sql']);
      for (const { o, c } of apps) {
        const app = appOf(c);
        expect(app && app in appEnvSchemas ? `${o.metadata.name}: ${app}` : `${o.metadata.name}: unknown command ${c.command?.join(' ')}`).toBe(`${o.metadata.name}: ${app}`);
        expect(() => parseEnv(appEnvSchemas[app!], environmentOf(objects, c), `${layout}/${o.metadata.name}`)).not.toThrow();
      }
    }
  });

  it('has one worker Deployment per role, each running only its role', () => {
    const workers = base.filter((o) => o.kind === 'Deployment' && o.metadata.name.startsWith('worker-'));
    expect(workers.map((w) => w.metadata.name).sort()).toEqual(workerRoles.map((r) => `worker-${r}`).sort());
    for (const w of workers) {
      const env = environmentOf(base, containersOf(w)[0] as Container);
      expect(`${w.metadata.name}: ${env.SQLSWEEP_ROLES}`).toBe(`${w.metadata.name}: ${w.metadata.name.replace('worker-', '')}`);
    }
  });

  it('points every process at the in-cluster Redis and the simulator at a dataset built into the image', () => {
    expect(named(base, 'ConfigMap', 'sqlsweep-env').data).toMatchObject({ REDIS_URL: 'redis://redis:6379' });
    const sim = containersOf(named(base, 'Deployment', 'llm-sim'))[0] as Container;
    expect(sim.command).toEqual(expect.arrayContaining(['--host', '0.0.0.0', '--dataset', 'data/minibench/dist']));
    expect(readFileSync(join(root, 'Dockerfile'), 'utf8')).toMatch(/data\/minibench\/build\.ts/);
  });

  it("runs Redis with the repository's redis.conf (AOF, noeviction)", () => {
    const conf = (named(base, 'ConfigMap', 'redis-conf').data as Record<string, string>)['redis.conf'];
    expect(conf).toBe(readFileSync(join(root, 'infra', 'redis.conf'), 'utf8'));
    expect(conf).toMatch(/^appendonly yes$/m);
    expect(conf).toMatch(/^maxmemory-policy noeviction$/m);
  });

  it('scales each worker role with KEDA on its queue depth from the metric the orchestrator exports', () => {
    const keda = rendered['overlays/keda'].map((r) => r.object);
    const scaled = keda.filter((o) => o.kind === 'ScaledObject');
    expect(scaled.map((s) => (s.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name).sort()).toEqual(workerRoles.map((r) => `worker-${r}`).sort());
    const metricsSource = readFileSync(join(root, 'apps', 'orchestrator', 'src', 'metrics.ts'), 'utf8');
    for (const s of scaled) {
      const [trigger] = (s.spec as { triggers: Array<{ type: string; metadata: { query: string } }> }).triggers;
      expect(trigger.type).toBe('prometheus');
      const query = /^sum\((\w+)\{queue="([^"]+)",state=~"([a-z|]+)"\}\)$/.exec(trigger.metadata.query);
      expect(query).not.toBeNull();
      const [, metric, queue] = query!;
      expect(metricsSource).toContain(`'${metric}'`);
      expect(queueNames).toContain(queue);
      named(keda, 'Deployment', (s.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name);
    }
    const monitor = named(keda, 'ServiceMonitor', 'orchestrator');
    const service = named(keda, 'Service', 'orchestrator');
    expect((monitor.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels).toEqual(service.metadata.labels && { 'app.kubernetes.io/name': service.metadata.labels['app.kubernetes.io/name'] });
  });

  it('with CloudNativePG, every process reads DATABASE_URL from the secret the operator writes', () => {
    const cnpg = rendered['overlays/cloudnative-pg'].map((r) => r.object);
    const cluster = named(cnpg, 'Cluster', 'sqlsweep-pg');
    for (const name of ['orchestrator', ...workerRoles.map((r) => `worker-${r}`)]) {
      const env = (containersOf(named(cnpg, 'Deployment', name))[0] as Container).env ?? [];
      const databaseUrl = env.filter((e) => e.name === 'DATABASE_URL');
      expect(databaseUrl).toEqual([{ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: `${cluster.metadata.name}-app`, key: 'uri' } } }]);
    }
  });

  it('puts every namespaced object in the sqlsweep namespace', () => {
    for (const layout of layouts) {
      for (const { object } of rendered[layout]) {
        if (object.kind !== 'Namespace') expect(`${object.kind} ${object.metadata.name}: ${object.metadata.namespace}`).toBe(`${object.kind} ${object.metadata.name}: sqlsweep`);
      }
    }
  });
});
