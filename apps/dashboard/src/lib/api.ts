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

function authHeaders(): Record<string, string> {
  const token = apiToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

async function failure(res: Response, path: string): Promise<ApiRequestError> {
  let body: ApiRequestError['body'] = null;
  try { body = (await res.json()) as ApiRequestError['body']; } catch { /* not JSON */ }
  return new ApiRequestError(res.status, body, path);
}

export async function getJson<T>(path: string, query: Query = {}): Promise<T> {
  const res = await fetch(apiUrl(path, query), { headers: { accept: 'application/json', ...authHeaders() } });
  if (!res.ok) throw await failure(res, path);
  return (await res.json()) as T;
}

/** POSTs JSON with the token this browser keeps; the API's error body becomes an ApiRequestError. */
export async function postJson<T>(path: string, body: unknown = {}): Promise<T> {
  const res = await fetch(apiUrl(path), { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json', ...authHeaders() }, body: JSON.stringify(body) });
  if (!res.ok) throw await failure(res, path);
  return (await res.json()) as T;
}

/** GETs a download with the token and saves it under the name the API gives (content-disposition). */
export async function download(path: string, query: Query = {}): Promise<string> {
  const res = await fetch(apiUrl(path, query), { headers: authHeaders() });
  if (!res.ok) throw await failure(res, path);
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'export';
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return name;
}

/** Retry delays after failed requests: 1 s, doubling, at most 15 s; the page keeps its last data meanwhile. */
export const retryDelayMs = (failures: number): number => Math.min(15_000, 1000 * 2 ** Math.max(0, failures - 1));

export interface Loaded<T> {
  data: T | undefined; error: Error | undefined; loading: boolean; reload: () => void;
  /** When the latest request failed but earlier data is kept: the next try is due at this time (ms since epoch). */
  retryAt?: number;
}

/**
 * GETs `path` (skipped while it is null) and keeps the answer; with `refreshMs` it polls while `keepPolling`
 * says the latest answer is still changing (e.g. a running sweep), and every `idleRefreshMs` otherwise (new runs in
 * a list). A failed request never stops it: it retries with exponential backoff (retryDelayMs), keeping the last
 * data on screen, and goes back to the normal pace after the first success.
 */
export function useApi<T>(path: string | null, query: Query = {}, opts: { refreshMs?: number; idleRefreshMs?: number; keepPolling?: (d: T) => boolean } = {}): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean; retryAt?: number }>({ loading: path !== null });
  const [tick, setTick] = useState(0);
  const queryKey = JSON.stringify(query);
  const keepPolling = useRef(opts.keepPolling);
  keepPolling.current = opts.keepPolling;
  useEffect(() => {
    if (path === null) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    const load = () => {
      getJson<T>(path, JSON.parse(queryKey) as Query).then(
        (data) => {
          if (!live) return;
          failures = 0;
          setState({ data, loading: false });
          const busy = keepPolling.current?.(data) ?? true;
          const next = busy ? opts.refreshMs : opts.idleRefreshMs;
          if (opts.refreshMs && next) timer = setTimeout(load, next);
        },
        (error: unknown) => {
          if (!live) return;
          const err = error instanceof Error ? error : new Error(String(error));
          // A 4xx answer is final (a wrong id, a refused token); anything else (network, 5xx) is retried.
          const final = err instanceof ApiRequestError && err.status >= 400 && err.status < 500;
          failures += 1;
          const delay = retryDelayMs(failures);
          setState((s) => ({ data: s.data, error: err, loading: false, retryAt: final ? undefined : Date.now() + delay }));
          if (!final) timer = setTimeout(load, delay);
        },
      );
    };
    setState((s) => ({ ...s, loading: true }));
    load();
    return () => { live = false; if (timer) clearTimeout(timer); };
  }, [path, queryKey, tick, opts.refreshMs, opts.idleRefreshMs]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload, retryAt: state.retryAt };
}
