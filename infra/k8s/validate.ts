import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import type { RenderedObject } from './render';

/**
 * Checks manifests against the Kubernetes API schemas of a pinned release, from the npm registry: kubernetes-models
 * (the core API) and its KEDA, Prometheus Operator and CloudNativePG packages (versions pinned in package.json).
 * Two checks, because the JSON schemas let unknown fields through (Kubernetes drops them silently, so a typo such as
 * `readinesProbe` would pass): the packages' validators (types, required fields, formats), and their TypeScript
 * interfaces, compiled against the objects as literals so that any field the API does not define is an error.
 */
const modelPackages: Record<string, string> = {
  '': 'kubernetes-models',
  apps: 'kubernetes-models/apps',
  'keda.sh': '@kubernetes-models/keda/keda.sh',
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator/monitoring.coreos.com',
  'postgresql.cnpg.io': '@kubernetes-models/cloudnative-pg/postgresql.cnpg.io',
};
const repoRoot = resolve(__dirname, '..', '..');

/** The module defining `kind` of `apiVersion` (e.g. apps/v1 Deployment -> kubernetes-models/apps/v1/Deployment). */
export function modelModuleOf(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const pkg = modelPackages[group];
  if (!pkg) throw new Error(`no pinned schema package for API group "${group}" (${apiVersion} ${kind}): add one to infra/k8s/validate.ts`);
  return `${pkg}/${version}/${kind}`;
}

const where = ({ file, object }: RenderedObject) => `${file}: ${object.kind} ${object.metadata?.name ?? '(no name)'}`;

/** Schema violations, one line each; the packages are ES modules only, so a child Node process runs them. */
export function schemaErrors(objects: RenderedObject[]): string[] {
  const script = `
    const objects = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    (async () => {
      const results = [];
      for (const { module, kind, object } of objects) {
        const Model = (await import(module))[kind];
        try { new Model(object).validate(); results.push(null); } catch (e) { results.push(e.message); }
      }
      process.stdout.write(JSON.stringify(results));
    })().catch((e) => { process.stderr.write(String(e.stack)); process.exit(1); });`;
  const input = objects.map(({ object }) => ({ module: modelModuleOf(object.apiVersion, object.kind), kind: object.kind, object }));
  const results = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: repoRoot, input: JSON.stringify(input), encoding: 'utf8' })) as Array<string | null>;
  return results.flatMap((error, i) => (error === null ? [] : [`${where(objects[i])}: ${error}`]));
}

/** Fields the API does not define, and values of the wrong type, from the packages' TypeScript interfaces. */
export function typeErrors(objects: RenderedObject[]): string[] {
  const fileName = join(repoRoot, '__k8s_manifests__.ts');
  const starts: number[] = [];
  let text = '';
  objects.forEach(({ object }, i) => {
    text += `import type { I${object.kind} as T${i} } from '${modelModuleOf(object.apiVersion, object.kind)}';\n`;
  });
  objects.forEach(({ object }, i) => {
    starts.push(text.split('\n').length - 1);
    text += `export const o${i}: T${i} = ${JSON.stringify(object, null, 2)};\n`;
  });
  const options: ts.CompilerOptions = {
    strict: true, noEmit: true, skipLibCheck: true, types: [],
    module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, target: ts.ScriptTarget.ES2022,
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (f) => (f === fileName ? text : readFile(f));
  host.fileExists = ((exists) => (f: string) => f === fileName || exists(f))(host.fileExists.bind(host));
  host.getSourceFile = (f, lang, ...rest) => (f === fileName ? ts.createSourceFile(f, text, lang) : getSourceFile(f, lang, ...rest));
  const program = ts.createProgram([fileName], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    if (d.file?.fileName !== fileName || d.start === undefined) return `${d.file?.fileName ?? ''}: ${message}`;
    const line = d.file.getLineAndCharacterOfPosition(d.start).line;
    const index = starts.findLastIndex((s) => s <= line);
    return index < 0 ? message : `${where(objects[index])}: ${message}`;
  });
}
