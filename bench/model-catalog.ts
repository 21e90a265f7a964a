import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';

type Models = Record<string, Record<string, unknown>>;

/** configs/models.yaml with `change` made to its models, written as `dir`/models.yaml; returns that file. */
export function writeModelCatalog(dir: string, change: (models: Models) => void): string {
  const catalog = parseYaml(readFileSync(resolve(__dirname, '..', 'configs', 'models.yaml'), 'utf8')) as { models: Models };
  change(catalog.models);
  const file = join(dir, 'models.yaml');
  writeFileSync(file, toYaml(catalog));
  return file;
}
