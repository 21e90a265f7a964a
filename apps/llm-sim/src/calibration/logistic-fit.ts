/** A term of a logistic model: its value per observation, the prior it is pulled to, and a sign it must keep. */
export interface FitTerm {
  name: string;
  values: readonly number[];
  prior: number;
  /** Ridge strength towards the prior (0: none). */
  ridge: number;
  sign?: 'nonnegative' | 'nonpositive';
}

export interface LogisticFit {
  coefficients: Record<string, number>;
  iterations: number;
  /** Terms held at their prior because the fit crossed the sign they must keep. */
  clamped: string[];
}

/** Solves A x = b (A symmetric positive definite, small) by Gaussian elimination with partial pivoting. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    const p = m[c]![c]!;
    if (Math.abs(p) < 1e-12) throw new Error('logistic fit: singular system (a term without variation and without ridge?)');
    for (let r = c + 1; r < n; r++) {
      const f = m[r]![c]! / p;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r]![n]!;
    for (let k = r + 1; k < n; k++) s -= m[r]![k]! * x[k]!;
    x[r] = s / m[r]![r]!;
  }
  return x;
}

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/**
 * Newton's method (IRLS) for a logistic regression of `outcomes` (0/1) on `terms` plus a fixed `offset` per
 * observation, each coefficient pulled towards its prior by its ridge. A term whose fit crosses its sign is held at
 * its prior (which keeps the sign) and the rest refitted. Deterministic: no random start, a fixed order.
 */
export function fitLogistic(terms: readonly FitTerm[], outcomes: readonly number[], offset: readonly number[]): LogisticFit {
  const n = outcomes.length;
  for (const t of terms) if (t.values.length !== n) throw new Error(`logistic fit: term ${t.name} has ${t.values.length} values for ${n} outcomes`);
  const clamped = new Set<string>();
  for (;;) {
    const free = terms.filter((t) => !clamped.has(t.name));
    const held = terms.filter((t) => clamped.has(t.name));
    const base = offset.map((o, i) => held.reduce((z, t) => z + t.prior * t.values[i]!, o));
    let beta = free.map((t) => t.prior);
    let iterations = 0;
    for (; iterations < 100; iterations++) {
      const grad = free.map((t, j) => t.ridge * (beta[j]! - t.prior));
      const hess = free.map((t, j) => free.map((_, k) => (j === k ? t.ridge : 0)));
      for (let i = 0; i < n; i++) {
        let z = base[i]!;
        free.forEach((t, j) => (z += beta[j]! * t.values[i]!));
        const p = sigmoid(z);
        const w = p * (1 - p);
        for (let j = 0; j < free.length; j++) {
          const xj = free[j]!.values[i]!;
          if (xj === 0) continue;
          grad[j]! += (p - outcomes[i]!) * xj;
          for (let k = 0; k < free.length; k++) hess[j]![k]! += w * xj * free[k]!.values[i]!;
        }
      }
      const step = solve(hess, grad);
      beta = beta.map((b, j) => b - step[j]!);
      if (Math.max(...step.map(Math.abs)) < 1e-10) break;
    }
    const crossed = free.filter((t, j) => (t.sign === 'nonnegative' && beta[j]! < 0) || (t.sign === 'nonpositive' && beta[j]! > 0));
    if (crossed.length === 0) {
      const coefficients: Record<string, number> = {};
      free.forEach((t, j) => (coefficients[t.name] = beta[j]!));
      for (const t of held) coefficients[t.name] = t.prior;
      return { coefficients, iterations, clamped: [...clamped] };
    }
    for (const t of crossed) clamped.add(t.name);
  }
}
