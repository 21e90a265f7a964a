// `node -r @swc-node/register libs/retrieval/src/encoder/bundled/build-bundled-encoder.main.ts <dir>`
// Builds the bundled encoder in its own process (set-up scripts and test helpers use this entry).
import { buildBundledEncoder } from './build-bundled-encoder';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: build-bundled-encoder.main.ts <target-dir>\n');
  process.exit(2);
}
const result = buildBundledEncoder({ dir });
process.stdout.write(`${JSON.stringify(result)}\n`);
