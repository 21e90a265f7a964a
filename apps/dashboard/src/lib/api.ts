import { useCallback, useEffect, useRef, useState } from 'react';

const tokenKey = 'sqlsweep.apiToken';

export function apiToken(): string | null {
  return localStorage.getItem(tokenKey);
}

export function setApiToken(token: string): void {
  if (token) localStorage.setItem(tokenKey, token);
  else localStorage.removeItem(tokenKey);
}

export type Query = Record<string, string | number | boolean | undefined | null>;

/** An API answer that was not 2xx, with the API's own error body ({error, field, reason}) when it sent one. */
export class ApiRequestError extends Error {
  constructor(readonly status: number, readonly body: { error?: string; field?: string; reason?: string } | null, path: string) {
    super(`${path}: ${status}${body?.error ? ` ${body.error}` : ''}${body?.field ? ` (${body.field}: ${body.reason ?? ''})` : body?.reason ? ` (${body.reason})` : ''}`);
  }
}

export function apiUrl(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return `/api${path}${qs ? `?${qs}` : ''}`;
}

export async function getJson<T>(path: string, query: Query = {}): Promise<T> {
  const token = apiToken();
  const res = await fetch(apiUrl(path, query), { headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  if (!res.ok) {
    let body: ApiRequestError['body'] = null;
    try { body = (await res.json()) as ApiRequestError['body']; } catch { /* not JSON */ }
    throw new ApiRequestError(res.status, body, path);
  }
  return (await res.json()) as T;
}

export interface Loaded<T> { data: T | undefined; error: Error | undefined; loading: boolean; reload: () => void }

/**
 * GETs `path` (skipped while it is null) and keeps the answer; with `refreshMs` it polls while `keepPolling`
 * says the latest answer is still changing (e.g. a running sweep).
 */
export function useApi<T>(path: string | null, query: Query = {}, opts: { refreshMs?: number; keepPolling?: (d: T) => boolean } = {}): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: path !== null });
  const [tick, setTick] = useState(0);
  const queryKey = JSON.stringify(query);
  const keepPolling = useRef(opts.keepPolling);
  keepPolling.current = opts.keepPolling;
  useEffect(() => {
    if (path === null) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = () => {
      getJson<T>(path, JSON.parse(queryKey) as Query).then(
        (data) => {
          if (!live) return;
          setState({ data, loading: false });
          if (opts.refreshMs && (keepPolling.current?.(data) ?? true)) timer = setTimeout(load, opts.refreshMs);
        },
        (error: unknown) => { if (live) setState({ error: error instanceof Error ? error : new Error(String(error)), loading: false }); },
      );
    };
    setState((s) => ({ ...s, loading: true }));
    load();
    return () => { live = false; if (timer) clearTimeout(timer); };
  }, [path, queryKey, tick, opts.refreshMs]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
