/**
 * Docker Compose variable interpolation, enough to read docker-compose.yml as Compose will:
 * `$$` (a literal $), `$VAR`, `${VAR}`, `${VAR:-default}` (unset or empty), `${VAR-default}` (unset),
 * `${VAR:?message}` / `${VAR?message}` (required). Unset variables without a default become "".
 */
export function interpolate(text: string, env: Record<string, string | undefined>, where = 'value'): string {
  return text.replace(/\$\$|\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (match, braced?: string, bare?: string) => {
    if (match === '$$') return '$';
    if (bare !== undefined) return env[bare] ?? '';
    const expression = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])(.*))?$/s.exec(braced ?? '');
    if (!expression) throw new Error(`${where}: invalid interpolation "${match}"`);
    const [, name, colon, operator, argument = ''] = expression as unknown as [string, string, string?, string?, string?];
    const value = env[name];
    const missing = value === undefined || (colon === ':' && value === '');
    if (operator === '-') return missing ? argument : (value as string);
    if (operator === '?') {
      if (missing) throw new Error(`${where}: required variable ${name} is not set${argument ? `: ${argument}` : ''}`);
      return value as string;
    }
    return value ?? '';
  });
}

/** Interpolates every string in a parsed YAML document; `path` names the field in errors. */
export function interpolateTree(node: unknown, env: Record<string, string | undefined>, path = ''): unknown {
  if (typeof node === 'string') return interpolate(node, env, path || '(root)');
  if (Array.isArray(node)) return node.map((item, i) => interpolateTree(item, env, `${path}[${i}]`));
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [key, interpolateTree(value, env, path ? `${path}.${key}` : key)]),
    );
  }
  return node;
}
