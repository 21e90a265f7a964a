import type { ReactNode } from 'react';
import { ApiRequestError, type Loaded } from '../lib/api';
import { NotFound } from './NotFound';

/**
 * Renders children with the data once loaded; a clear message while loading or on an API error. When a refresh
 * failed but earlier data is kept, the data stays on screen under a line saying the page is reconnecting.
 */
export function Status<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ReactNode }) {
  if (loaded.error instanceof ApiRequestError && loaded.data === undefined && (loaded.error.status === 404 || loaded.error.status === 409)) {
    return <NotFound what={loaded.error.body?.error ?? loaded.error.message} reason={loaded.error.status === 409 ? 'The short id is ambiguous: use more of it.' : undefined} />;
  }
  if (loaded.error && loaded.data === undefined) {
    return <div className="error" role="alert">API error: {loaded.error.message}{loaded.retryAt ? ' — retrying…' : ''}</div>;
  }
  if (loaded.data === undefined) return <div className="loading">loading…</div>;
  return (
    <>
      {loaded.error && <div className="warning" role="status" data-testid="reconnecting">Connection lost ({loaded.error.message}): showing the last data, retrying{loaded.retryAt ? ` in ${Math.max(1, Math.round((loaded.retryAt - Date.now()) / 1000))} s` : ''}…</div>}
      {children(loaded.data)}
    </>
  );
}
