import type { ReactNode } from 'react';
import type { Loaded } from '../lib/api';

/** Renders children with the data once loaded; a clear message while loading or on an API error. */
export function Status<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ReactNode }) {
  if (loaded.error) return <div className="error" role="alert">API error: {loaded.error.message}</div>;
  if (loaded.data === undefined) return <div className="loading">loading…</div>;
  return <>{children(loaded.data)}</>;
}
