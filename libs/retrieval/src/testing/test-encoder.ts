import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLED_ENCODER_VERSION } from '../encoder/bundled/build-bundled-encoder';

/**
 * Builds (once per machine, idempotently) the bundled encoder for tests and returns its directory. The build runs
 * in a plain node process: inside Jest's module sandbox the hashing loops run tens of times slower.
 */
export function ensureBundledEncoderForTests(): string {
  const dir = join(tmpdir(), 'sqlsweep-test-models', `bundled-v${BUNDLED_ENCODER_VERSION}`);
  const entry = join(__dirname, '..', 'encoder', 'bundled', 'build-bundled-encoder.main.ts');
  execFileSync(process.execPath, ['-r', '@swc-node/register', entry, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  return dir;
}
