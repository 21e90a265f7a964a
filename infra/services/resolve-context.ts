import { redactUrl } from './redis-settings';

/** What every resolver step needs: where private servers live, the environment, and where to print. */
export interface ResolveContext {
  servicesDir: string;
  env: Record<string, string | undefined>;
  log: (line: string) => void;
  searchDirs: string[];
  allowApt: boolean;
}

/** A chosen server: its URL and, in words, why it was chosen. */
export interface Resolved {
  url: string;
  source: string;
}

export function announce(ctx: ResolveContext, service: 'redis' | 'postgres', resolved: Resolved): Resolved {
  ctx.log(`${service}: ${redactUrl(resolved.url)} — ${resolved.source}`);
  return resolved;
}
