import type { ResultTableDto } from '@sqlsweep/contracts';

/** A query's result as the sandbox returned it, or why there is none. */
export function ResultTable({ table, title, testId }: { table: ResultTableDto; title: string; testId: string }) {
  return (
    <div className="result-table" data-testid={testId} data-status={table.status} data-row-count={table.rowCount}>
      <h4>{title}: {table.status === 'ok' ? `${table.rowCount} row${table.rowCount === 1 ? '' : 's'}${table.truncated ? ` (first ${table.rows.length} shown)` : ''}` : table.status}
        <span className="muted"> · {Math.round(table.elapsedMs)} ms</span></h4>
      {table.message && <pre className="trace err">{table.message}</pre>}
      {table.status === 'ok' && (
        <div className="table-scroll">
          <table className="grid compact">
            <thead><tr>{table.columns.map((c, i) => <th key={i}>{c}</th>)}</tr></thead>
            <tbody>
              {table.rows.map((r, i) => <tr key={i}>{r.map((v, j) => <td key={j} className={typeof v === 'number' ? 'num' : ''}>{v === null ? <span className="muted">NULL</span> : String(v)}</td>)}</tr>)}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
