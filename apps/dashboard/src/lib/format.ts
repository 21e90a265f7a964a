export const pct = (v: number | null | undefined): string => (v === null || v === undefined ? '–' : v.toFixed(2));
export const signedPp = (v: number): string => `${v > 0 ? '+' : ''}${v.toFixed(2)} pp`;
export const usd = (v: number | null | undefined): string => {
  if (v === null || v === undefined) return '–';
  return v !== 0 && Math.abs(v) < 0.01 ? `$${v.toFixed(5)}` : `$${v.toFixed(4)}`;
};
export const int = (v: number): string => Math.round(v).toLocaleString('en-US');
export const ms = (v: number): string => (v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${Math.round(v)} ms`);
export const pValue = (p: number): string => (p < 0.0001 ? '< 0.0001' : p.toFixed(4));

export function duration(seconds: number | null): string {
  if (seconds === null) return '–';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

export const when = (iso: string | null): string => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 19) : '–');
export const shortId = (id: string): string => id.slice(0, 8);

/** The axis label of an EX chart: EX with the scorer(s) of the numbers plotted (`EX % (bird-ex@2)`). */
export function exLabel(scorers: Array<string | null | undefined>): string {
  const named = [...new Set(scorers.flatMap((s) => s?.split(',') ?? []))].sort();
  return `EX % (${named.length > 0 ? named.join(', ') : 'no scorer recorded'})`;
}
