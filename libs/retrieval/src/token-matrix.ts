/** Per-token embeddings of one text: `rows` vectors of `dim` floats, row-major. */
export interface TokenMatrix {
  rows: number;
  dim: number;
  data: Float32Array;
}

/**
 * ColBERT late-interaction score: sum over query tokens of the max dot product with any document token.
 * `docData` holds the document rows starting at `docOffset` (in floats). All-zero query rows (padding of models
 * that zero masked positions) are skipped by the caller through `activeQueryRows`.
 */
export function maxSimAt(query: TokenMatrix, activeQueryRows: readonly number[], docData: Float32Array, docOffset: number, docRows: number): number {
  const dim = query.dim;
  const q = query.data;
  let score = 0;
  for (const qr of activeQueryRows) {
    const qBase = qr * dim;
    let best = -Infinity;
    for (let dr = 0; dr < docRows; dr++) {
      const dBase = docOffset + dr * dim;
      let dot = 0;
      let i = 0;
      for (; i + 4 <= dim; i += 4) {
        dot +=
          q[qBase + i] * docData[dBase + i] +
          q[qBase + i + 1] * docData[dBase + i + 1] +
          q[qBase + i + 2] * docData[dBase + i + 2] +
          q[qBase + i + 3] * docData[dBase + i + 3];
      }
      for (; i < dim; i++) dot += q[qBase + i] * docData[dBase + i];
      if (dot > best) best = dot;
    }
    if (docRows > 0) score += best;
  }
  return score;
}

export function nonZeroRows(matrix: TokenMatrix): number[] {
  const rows: number[] = [];
  for (let r = 0; r < matrix.rows; r++) {
    const base = r * matrix.dim;
    for (let i = 0; i < matrix.dim; i++) {
      if (matrix.data[base + i] !== 0) {
        rows.push(r);
        break;
      }
    }
  }
  return rows;
}

export function maxSim(query: TokenMatrix, doc: TokenMatrix): number {
  return maxSimAt(query, nonZeroRows(query), doc.data, 0, doc.rows);
}
