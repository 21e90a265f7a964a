import { join } from 'node:path';
import { buildBundledEncoder, BUNDLED_ENCODER_NAME } from './bundled/build-bundled-encoder';

/**
 * The encoder directory the workers (and the planner, resolving operating points) run: SQLSWEEP_ENCODER_DIR when
 * set, else the bundled encoder under `<dataDir>/models`, built there first when missing.
 */
export function configuredEncoderDir(opts: { dataDir: string; encoderDir?: string }): string {
  return opts.encoderDir ?? buildBundledEncoder({ dir: join(opts.dataDir, 'models', BUNDLED_ENCODER_NAME) }).dir;
}
