import { addHashedSignVector } from './hashing';
import { PUNCTUATION, SPECIAL_TOKENS } from './vocabulary';

/**
 * Embedding of one vocabulary piece: a sum of hashed ±1 vectors of its character bi/trigrams and of the whole
 * piece, unit-normalised. Pieces sharing n-grams get similar vectors, so "singer" matches "singers" and "sing".
 * Special tokens and punctuation embed to zero: they never contribute to a MaxSim score.
 */
/** Bigrams are shared by many unrelated pieces: weighted down so they add less MaxSim noise. */
export const BIGRAM_WEIGHT = 0.5;

export function pieceEmbedding(piece: string, dim: number): Float32Array {
  const vector = new Float32Array(dim);
  if ((SPECIAL_TOKENS as readonly string[]).includes(piece) || (piece.length === 1 && PUNCTUATION.includes(piece))) {
    return vector;
  }
  const continuation = piece.startsWith('##');
  const body = continuation ? piece.slice(2) : piece;
  const marked = continuation ? body : `<${body}`;
  addHashedSignVector(vector, `piece:${marked}`, 1.5);
  for (const [n, weight] of [[2, BIGRAM_WEIGHT], [3, 1]] as const) {
    for (let i = 0; i + n <= marked.length; i++) addHashedSignVector(vector, `gram:${marked.slice(i, i + n)}`, weight);
  }
  if (body.length === 1) addHashedSignVector(vector, `char:${body}`, 0.5);
  let norm = 0;
  for (let i = 0; i < dim; i++) norm += vector[i] * vector[i];
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dim; i++) vector[i] /= norm;
  return vector;
}

export function buildEmbeddingTable(vocabulary: readonly string[], dim: number): Float32Array {
  const table = new Float32Array(vocabulary.length * dim);
  vocabulary.forEach((piece, row) => table.set(pieceEmbedding(piece, dim), row * dim));
  return table;
}

/** A random orthogonal matrix (Gram-Schmidt on seeded Gaussian-ish rows): a projection that preserves angles. */
export function orthogonalProjection(inputDim: number, outputDim: number, seedKey: string): Float32Array {
  const rows: Float64Array[] = [];
  for (let r = 0; r < Math.max(inputDim, outputDim); r++) {
    const v = new Float32Array(inputDim);
    addHashedSignVector(v, `${seedKey}:${r}:a`, 1);
    addHashedSignVector(v, `${seedKey}:${r}:b`, 0.5);
    const row = Float64Array.from(v);
    for (const previous of rows) {
      let dot = 0;
      for (let i = 0; i < inputDim; i++) dot += row[i] * previous[i];
      for (let i = 0; i < inputDim; i++) row[i] -= dot * previous[i];
    }
    let norm = 0;
    for (let i = 0; i < inputDim; i++) norm += row[i] * row[i];
    norm = Math.sqrt(norm);
    if (norm < 1e-9) continue;
    for (let i = 0; i < inputDim; i++) row[i] /= norm;
    rows.push(row);
    if (rows.length === Math.min(inputDim, outputDim)) break;
  }
  // Stored as [inputDim, outputDim] for MatMul(x[.., inputDim], W).
  const weights = new Float32Array(inputDim * outputDim);
  rows.forEach((row, out) => {
    for (let i = 0; i < inputDim; i++) weights[i * outputDim + out] = row[i];
  });
  return weights;
}
