import { Command } from 'commander';
import { listIndexes, type IndexListing } from '@sqlsweep/retrieval';
import { formatBytes } from '../render';

export const DEFAULT_INDEX_DIR = '.sqlsweep/indexes';

export function renderIndexStatus(listing: IndexListing): string {
  const header = ['key', 'kind', 'dataset', 'database', 'encoder', 'docs', 'tokens', 'size', 'built in', 'created'];
  const rows = listing.indexes.map((m) => [
    m.key.slice(0, 12),
    m.kind,
    m.datasetVersion.slice(0, 16),
    m.dbId ?? '-',
    m.encoder.name,
    String(m.documents),
    String(m.tokenRows),
    formatBytes(m.bytes),
    `${m.buildMs} ms`,
    m.createdAt.replace('T', ' ').slice(0, 19),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  const out = [line(header), ...rows.map(line)];
  if (listing.indexes.length === 0) out.push('(no indexes built yet)');
  for (const dir of listing.incomplete) out.push(`incomplete (no manifest): ${dir}`);
  return `${out.join('\n')}\n`;
}

/** `sqlsweep index status`: the indexes built under the index directory, read from their manifests. */
export function registerIndexStatusCommand(program: Command): void {
  const index = program.commands.find((c) => c.name() === 'index') ?? program.command('index').description('retrieval indexes');
  index
    .command('status')
    .description('list the retrieval indexes built so far (one per content hash of documents + encoder)')
    .option('--dir <dir>', 'index directory', DEFAULT_INDEX_DIR)
    .option('--json', 'print the manifests as JSON')
    .action((opts: { dir: string; json?: boolean }) => {
      const listing = listIndexes(opts.dir);
      process.stdout.write(opts.json ? `${JSON.stringify(listing, null, 2)}\n` : renderIndexStatus(listing));
    });
}
