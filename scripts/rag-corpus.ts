/**
 * R3's default RAG corpus (R3_DEFAULT_RAG_CORPUS, in the corpus directory): WordNet's noun glosses, built from the
 * Debian package wordnet-base, which set-up installs with apt-get when it is missing. Rewritten only when its bytes
 * would change; the same WordNet files always give the same bytes.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { corpusDir, R3_DEFAULT_RAG_CORPUS } from '@sqlsweep/contracts';
import { aptInstall, canUseApt, pathDirectories } from '@sqlsweep/infra';
import { wordnetNounGlossCorpus } from '@sqlsweep/retrieval';

export const WORDNET_PACKAGE = 'wordnet-base';
const WORDNET_DIR = '/usr/share/wordnet';
const WORDNET_FILES = { dataNoun: join(WORDNET_DIR, 'data.noun'), cntlistRev: join(WORDNET_DIR, 'cntlist.rev') };

/** wordnet-base installed with apt-get when missing (Debian/Ubuntu as root); anywhere else a clear error. */
export function ensureWordnet(log: (line: string) => void, env: Record<string, string | undefined> = process.env): void {
  if (Object.values(WORDNET_FILES).every((f) => existsSync(f))) return;
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

/**
 * Whether the corpus at `path` was written after its WordNet files last changed. An input's ctime counts too: dpkg
 * keeps a package's own mtimes, so a reinstalled or upgraded data.noun can carry an mtime older than the corpus.
 */
function corpusNewerThanInputs(path: string): boolean {
  if (!existsSync(path)) return false;
  const written = statSync(path).mtimeMs;
  return Object.values(WORDNET_FILES).every((f) => {
    if (!existsSync(f)) return false;
    const input = statSync(f);
    return Math.max(input.mtimeMs, input.ctimeMs) < written;
  });
}

/**
 * Installs wordnet-base if needed and writes the corpus into `corpusDir` unless it is newer than its WordNet files
 * (then nothing is read) or already byte-identical.
 */
export function buildNeutralRagCorpus(opts: { corpusDir: string; log: (line: string) => void }): NeutralCorpusResult {
  const path = join(opts.corpusDir, R3_DEFAULT_RAG_CORPUS);
  if (corpusNewerThanInputs(path)) return { path, built: false, bytes: statSync(path).size };
  ensureWordnet(opts.log);
  const text = wordnetNounGlossCorpus(
    { dataNoun: readFileSync(WORDNET_FILES.dataNoun, 'utf8'), cntlistRev: readFileSync(WORDNET_FILES.cntlistRev, 'utf8') },
    WORDNET_FILES.dataNoun,
  );
  const bytes = Buffer.from(text, 'utf8');
  if (existsSync(path) && readFileSync(path).equals(bytes)) {
    // Newer than its inputs from now on, so the next set-up skips the rebuild.
    const now = new Date();
    utimesSync(path, now, now);
    return { path, built: false, bytes: bytes.length };
  }
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.partial`;
  writeFileSync(partial, bytes);
  renameSync(partial, path);
  return { path, built: true, bytes: bytes.length };
}
