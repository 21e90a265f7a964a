export { RetrievalError, type RetrievalErrorCode } from './errors';
export { maxSim, maxSimAt, nonZeroRows, type TokenMatrix } from './token-matrix';
export { encoderConfigSchema, readEncoderConfig, type EncoderConfig, type EncoderConfigInput } from './encoder/encoder-config';
export { openEncoder, encoderFingerprint, type Encoder, type EncoderLogger, type OpenEncoderOptions } from './encoder/encoder';
export type { ExecutionProviderName } from './encoder/encoder-protocol';
export type { TextRole } from './encoder/colbert-tokenization';
export {
  buildBundledEncoder,
  BUNDLED_ENCODER_NAME,
  BUNDLED_ENCODER_VERSION,
  type BuildBundledEncoderOptions,
  type BuildBundledEncoderResult,
} from './encoder/bundled/build-bundled-encoder';
