import { useEffect, useState } from 'react';

/** Hash routes (`#/runs/<id>?x=1`), so the orchestrator can serve the build as plain static files. */
export interface Route { path: string[]; query: URLSearchParams }

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, '') || '/runs';
  const [p, q = ''] = raw.split('?', 2);
  return { path: p.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(q) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

export function href(path: (string | number)[], query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return `#/${path.map((s) => encodeURIComponent(String(s))).join('/')}${qs ? `?${qs}` : ''}`;
}
