import { href } from '../lib/router';

/** The page for something that does not exist: what was asked for, why, and where to go instead. */
export function NotFound({ what, reason }: { what: string; reason?: string }) {
  return (
    <section className="not-found" data-testid="not-found" role="alert">
      <h1>Not found</h1>
      <p>{what}</p>
      {reason && <p className="muted">{reason}</p>}
      <p><a href={href(['runs'])}>All runs</a> · <a href={href(['trends'])}>Trends</a></p>
    </section>
  );
}
