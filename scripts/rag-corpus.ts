/**
 * R3's default RAG corpus (R3_DEFAULT_RAG_CORPUS, in the corpus directory): WordNet's noun glosses, built from the
 * Debian package wordnet-base, which set-up installs with apt-get when it is missing. Rewritten only when its bytes
 * would change; the same WordNet files always give the same bytes.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { corpusDir, R3_DEFAULT_RAG_CORPUS } from '@sqlsweep/contracts';
import { aptInstall, canUseApt, pathDirectories } from '@sqlsweep/infra';
import { wordnetNounGlossCorpus } from '@sqlsweep/retrieval';

export const WORDNET_PACKAGE = 'wordnet-base';
const WORDNET_DIR = '/usr/share/wordnet';
const WORDNET_FILES = { dataNoun: join(WORDNET_DIR, 'data.noun'), cntlistRev: join(WORDNET_DIR, 'cntlist.rev') };

function packageInstalled(): boolean {
  const query = spawnSync('dpkg-query', ['-W', '-f=${Status}', WORDNET_PACKAGE], { encoding: 'utf8' });
  return query.status === 0 && query.stdout.includes('install ok installed');
}

/** wordnet-base installed with apt-get when missing (Debian/Ubuntu as root); anywhere else a clear error. */
export function ensureWordnet(log: (line: string) => void, env: Record<string, string | undefined> = process.env): void {
  const filesPresent = Object.values(WORDNET_FILES).every((f) => existsSync(f));
  if (filesPresent && (packageInstalled() || spawnSync('dpkg-query', ['--version']).status !== 0)) return;
  const ctx = { searchDirs: pathDirectories(env), log };
  if (!canUseApt(ctx)) {
    throw new Error(
      `set-up: R3's default RAG corpus is built from the Debian package ${WORDNET_PACKAGE} (WordNet 3.0's ${WORDNET_FILES.dataNoun} and ` +
      `${WORDNET_FILES.cntlistRev}), which is missing, and apt-get cannot install it here (it needs Debian/Ubuntu and root). ` +
      `Install it yourself: sudo apt-get install -y ${WORDNET_PACKAGE}`,
    );
  }
  aptInstall([WORDNET_PACKAGE], ctx);
  const missing = Object.values(WORDNET_FILES).filter((f) => !existsSync(f));
  if (missing.length > 0) throw new Error(`set-up: apt-get installed ${WORDNET_PACKAGE} but ${missing.join(' and ')} is missing`);
}

/** The corpus directory as the planner and the workers resolve it (libs/contracts corpus-dir.ts), here from the project. */
export function setupCorpusDir(projectDir: string, env: Record<string, string | undefined> = process.env): string {
  return corpusDir(env, projectDir);
}

export interface NeutralCorpusResult { path: string; built: boolean; bytes: number }

/** Installs wordnet-base if needed and writes the corpus into `corpusDir` unless it is already byte-identical. */
export function buildNeutralRagCorpus(opts: { corpusDir: string; log: (line: string) => void }): NeutralCorpusResult {
  ensureWordnet(opts.log);
  const text = wordnetNounGlossCorpus(
    { dataNoun: readFileSync(WORDNET_FILES.dataNoun, 'utf8'), cntlistRev: readFileSync(WORDNET_FILES.cntlistRev, 'utf8') },
    WORDNET_FILES.dataNoun,
  );
  const bytes = Buffer.from(text, 'utf8');
  const path = join(opts.corpusDir, R3_DEFAULT_RAG_CORPUS);
  if (existsSync(path) && readFileSync(path).equals(bytes)) return { path, built: false, bytes: bytes.length };
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.partial`;
  writeFileSync(partial, bytes);
  renameSync(partial, path);
  return { path, built: true, bytes: bytes.length };
}
