export type RetrievalErrorCode =
  | 'ENCODER_CONFIG_INVALID'
  | 'ENCODER_MODEL_MISSING'
  | 'ENCODER_TOKENIZER_INVALID'
  | 'ENCODER_INFERENCE_FAILED'
  | 'ENCODER_CLOSED'
  | 'INDEX_DIMENSION_MISMATCH'
  | 'INDEX_CORRUPT'
  | 'INDEX_NOT_FOUND'
  | 'DATASET_INVALID';

/** Every failure of the retrieval layer carries a code and names the file/field/item at fault. */
export class RetrievalError extends Error {
  constructor(
    readonly code: RetrievalErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = 'RetrievalError';
  }
}
