import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLED_ENCODER_VERSION } from '../encoder/bundled/build-bundled-encoder';
import { openEncoder, type Encoder } from '../encoder/encoder';

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

/** For specs: the bundled encoder, open, and a fresh folder for indexes; `close()` closes the one and deletes the other. */
export interface BundledEncoderFixture {
  encoder: Encoder;
  root: string;
  close(): Promise<void>;
}

export async function openBundledEncoderFixture(name: string): Promise<BundledEncoderFixture> {
  const encoder = await openEncoder({ modelDir: ensureBundledEncoderForTests() });
  const root = mkdtempSync(join(tmpdir(), `sqlsweep-${name}-`));
  return {
    encoder,
    root,
    close: async () => {
      await encoder.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
