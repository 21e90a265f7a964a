import { useState } from 'react';
import { apiToken, setApiToken } from './lib/api';
import { href, useRoute, type Route } from './lib/router';
import { ComparePage } from './pages/ComparePage';
import { ItemPage } from './pages/ItemPage';
import { ItemsPage } from './pages/ItemsPage';
import { MatrixPage } from './pages/MatrixPage';
import { NotFound } from './components/NotFound';
import { ParamSweepPage } from './pages/ParamSweepPage';
import { RunPage } from './pages/RunPage';
import { RunsPage } from './pages/RunsPage';
import { TrendsPage } from './pages/TrendsPage';

function page(route: Route) {
  const [first, id, sub, subId] = route.path;
  if (route.path.length > 4 || (first === 'runs' && sub !== undefined && !['items', 'sweep', 'matrix'].includes(sub))) return <UnknownPage route={route} />;
  if (first === 'runs' && id && sub === 'items' && subId) return <ItemPage key={`${id}/${subId}`} runId={id} itemId={subId} variantId={route.query.get('variant') ?? undefined} />;
  if (first === 'runs' && id && sub === 'matrix') return <MatrixPage runId={id} route={route} />;
  if (first === 'runs' && id && sub === 'items') return <ItemsPage runId={id} route={route} />;
  if (first === 'runs' && id && sub === 'sweep') return <ParamSweepPage runId={id} route={route} />;
  if (first === 'runs' && id) return <RunPage key={id} runId={id} />;
  if (first === 'runs') return <RunsPage />;
  if (first === 'compare') return <ComparePage route={route} />;
  if (first === 'trends') return <TrendsPage route={route} />;
  return <UnknownPage route={route} />;
}

function UnknownPage({ route }: { route: Route }) {
  return <NotFound what={`The dashboard has no page at #/${route.path.join('/')}.`} />;
}

export function App() {
  const route = useRoute();
  return (
    <>
      <header>
        <a className="brand" href={href(['runs'])}>sqlsweep</a>
        <nav>
          <a href={href(['runs'])} className={route.path[0] === 'runs' ? 'active' : ''}>Runs</a>
          <a href={href(['compare'])} className={route.path[0] === 'compare' ? 'active' : ''}>Compare</a>
          <a href={href(['trends'])} className={route.path[0] === 'trends' ? 'active' : ''}>Trends</a>
        </nav>
        <TokenField />
      </header>
      <main>{page(route)}</main>
    </>
  );
}

/** Reads can be closed by the orchestrator's config; then the API token is kept in this browser only. */
function TokenField() {
  const [token, setToken] = useState(apiToken() ?? '');
  return (
    <form className="token" onSubmit={(e) => { e.preventDefault(); setApiToken(token); window.location.reload(); }}>
      <input type="password" autoComplete="off" placeholder="API token (if reads are closed)" value={token} onChange={(e) => setToken(e.target.value)} aria-label="API token" />
    </form>
  );
}
