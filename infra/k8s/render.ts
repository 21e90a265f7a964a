import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** One Kubernetes object as written in a manifest, with the file it came from (for error messages). */
export interface RenderedObject {
  file: string;
  object: K8sObject;
}
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [k: string]: unknown };
  [k: string]: unknown;
}

/** Kinds that are not namespaced among those the manifests use: `namespace:` leaves them alone, as kustomize does. */
const clusterScoped = new Set(['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding']);
const supportedFields = new Set(['apiVersion', 'kind', 'namespace', 'labels', 'resources', 'images', 'patches']);

/**
 * The objects `kubectl apply -k <dir>` would send, for the subset of kustomize the manifests under infra/k8s use
 * (resources, namespace, labels without selectors, images, strategic-merge patches with a kind/label-selector
 * target). Any other kustomization field is an error rather than silently ignored, so the check cannot pass on a
 * rendering that differs from kustomize's.
 */
export function renderKustomization(dir: string): RenderedObject[] {
  const path = join(dir, 'kustomization.yaml');
  const k = parseYamlDocs(path)[0] as Record<string, unknown>;
  const unsupported = Object.keys(k).filter((f) => !supportedFields.has(f));
  if (unsupported.length > 0) throw new Error(`${path}: kustomization fields ${unsupported.join(', ')} are not understood by infra/k8s/render.ts`);

  const objects: RenderedObject[] = [];
  for (const resource of (k.resources as string[] | undefined) ?? []) {
    const target = resolve(dir, resource);
    if (statSync(target).isDirectory()) objects.push(...renderKustomization(target));
    else objects.push(...parseYamlDocs(target).map((object) => ({ file: relative(process.cwd(), target), object: object as K8sObject })));
  }
  for (const patch of (k.patches as Array<{ path: string; target: { kind?: string; labelSelector?: string } }> | undefined) ?? []) {
    const patchFile = resolve(dir, patch.path);
    const body = parseYamlDocs(patchFile)[0] as K8sObject;
    const targets = objects.filter(({ object }) => matchesTarget(object, patch.target));
    if (targets.length === 0) throw new Error(`${patchFile}: its target matches no object`);
    for (const t of targets) {
      const { metadata: _ignored, ...patchBody } = body;
      t.object = strategicMerge(t.object, patchBody) as K8sObject;
    }
  }
  const namespace = k.namespace as string | undefined;
  for (const { object } of objects) {
    if (namespace && !clusterScoped.has(object.kind)) object.metadata.namespace = namespace;
    for (const { pairs } of (k.labels as Array<{ pairs: Record<string, string> }> | undefined) ?? []) {
      object.metadata.labels = { ...object.metadata.labels, ...pairs };
    }
  }
  for (const image of (k.images as Array<{ name: string; newName?: string; newTag?: string }> | undefined) ?? []) {
    for (const { object } of objects) {
      for (const container of containersOf(object)) {
        if (container.image !== image.name && !container.image.startsWith(`${image.name}:`)) continue;
        const [name, tag] = container.image.split(':');
        container.image = `${image.newName ?? name}${(image.newTag ?? tag) ? `:${image.newTag ?? tag}` : ''}`;
      }
    }
  }
  return objects;
}

export function containersOf(object: K8sObject): Array<{ name: string; image: string; [k: string]: unknown }> {
  const spec = (object.spec as { template?: { spec?: { containers?: Array<{ name: string; image: string }> } } } | undefined);
  return spec?.template?.spec?.containers ?? [];
}

function parseYamlDocs(path: string): unknown[] {
  const docs = parseAllDocuments(readFileSync(path, 'utf8'));
  return docs.map((d, i) => {
    if (d.errors.length > 0) throw new Error(`${path} (document ${i + 1}): ${d.errors[0].message}`);
    return d.toJS();
  }).filter((d) => d !== null);
}

/** `kind: X` and `labelSelector: key in (a,b)` or `key=value`. */
function matchesTarget(object: K8sObject, target: { kind?: string; labelSelector?: string }): boolean {
  if (target.kind && object.kind !== target.kind) return false;
  if (!target.labelSelector) return true;
  const labels = (object.metadata.labels ?? {}) as Record<string, string>;
  const inSet = /^([\w./-]+)\s+in\s+\(([^)]*)\)$/.exec(target.labelSelector);
  if (inSet) return inSet[2].split(',').map((v) => v.trim()).includes(labels[inSet[1]]);
  const equals = /^([\w./-]+)=([\w.-]+)$/.exec(target.labelSelector);
  if (equals) return labels[equals[1]] === equals[2];
  throw new Error(`label selector "${target.labelSelector}" is not understood by infra/k8s/render.ts`);
}

/** Strategic merge as Kubernetes does it for the fields used here: maps merge, lists of named entries merge by name. */
function strategicMerge(base: unknown, patch: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(patch) && [...base, ...patch].every((e) => typeof e === 'object' && e !== null && 'name' in e)) {
    const merged = base.map((e) => {
      const p = patch.find((q) => q.name === e.name);
      return p ? strategicMerge(e, p) : e;
    });
    return [...merged, ...patch.filter((p) => !base.some((e) => e.name === p.name))];
  }
  if (isMap(base) && isMap(patch)) {
    const out: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      out[key] = key in base ? strategicMerge(base[key], value) : value;
    }
    return out;
  }
  return patch;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const k8sDir = dirname(__filename);
