'use strict';
/**
 * The TypeScript hook `bin/sqlsweep` loads the CLI with: `.ts` modules are compiled by @swc/core with the repository's
 * .swcrc (the options the Jest suites compile with) and the output is kept on disk, so a later start reads plain
 * JavaScript and never loads a compiler. @swc-node/register, which the other processes use, loads the `typescript`
 * package to read tsconfig.json on every start (about 300 ms); this hook needs neither it nor, on a warm cache,
 * @swc/core.
 *
 * The cache is a folder of this user's alone (SQLSWEEP_TS_CACHE_DIR, default <tmpdir>/sqlsweep-ts-<uid>): a file is
 * named by the hash of its source, its path, the options and @swc/core's version, so an edit or an upgrade compiles
 * again. A folder that cannot be made, is not a directory owned by this user, or can be written by others (the
 * temporary folder is shared: someone else's folder could feed us code) is not used: modules are compiled in memory.
 * Stack traces point at the .ts lines (inline source maps, Node's own source map support).
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');

const repoRoot = path.join(__dirname, '..');

/** The repository's .swcrc as @swc/core's transform options (what jest.config.js hands @swc/jest). */
function swcOptions(root = repoRoot) {
  const options = JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8'));
  delete options.$schema;
  return { ...options, swcrc: false, configFile: false, sourceMaps: 'inline', inlineSourcesContent: true };
}

function defaultCacheDir() {
  return process.env.SQLSWEEP_TS_CACHE_DIR || path.join(os.tmpdir(), `sqlsweep-ts-${process.getuid ? process.getuid() : 0}`);
}

/** Ours alone: a directory (not a link to one) owned by this user that nobody else can write to. */
function isPrivateFolder(dir) {
  const s = fs.lstatSync(dir);
  return s.isDirectory() && (!process.getuid || s.uid === process.getuid()) && (s.mode & 0o022) === 0;
}

/**
 * Makes `dir` and its missing parents, private. Not fs.mkdirSync's `recursive`: under /proc, where mkdir answers
 * ENOENT below an existing folder, Node 20's recursive mkdir never returns.
 */
function makeFolder(dir, depth = 0) {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if (e.code === 'EEXIST') return;
    if (e.code !== 'ENOENT' || depth >= 32 || path.dirname(dir) === dir) throw e;
    makeFolder(path.dirname(dir), depth + 1);
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (again) {
      if (again.code !== 'EEXIST') throw again; // made meanwhile by a concurrent start: checked as any existing folder
    }
  }
}

/** The cache folder, made if missing; null when it cannot be made or is not private (then nothing is cached). */
function openCacheDir(dir) {
  try {
    makeFolder(path.resolve(dir));
    return isPrivateFolder(dir) ? dir : null;
  } catch {
    return null;
  }
}

/**
 * Installs the `.ts` hook in this process. Returns what it did so far (`stats()`: modules read from the cache,
 * compiled, and whether the cache folder is in use), for the tests and the start-up measurement.
 */
function register({ cacheDir = defaultCacheDir(), root = repoRoot } = {}) {
  const options = swcOptions(root);
  const swcVersion = JSON.parse(fs.readFileSync(require.resolve('@swc/core/package.json'), 'utf8')).version;
  const salt = JSON.stringify({ swcVersion, options });
  const dir = openCacheDir(cacheDir);
  const counts = { cached: 0, compiled: 0, cacheDir: dir };
  let swc;

  function compile(source, filename) {
    swc ??= require('@swc/core');
    return swc.transformSync(source, { ...options, filename }).code;
  }

  function load(source, filename) {
    if (!dir) {
      counts.compiled += 1;
      return compile(source, filename);
    }
    const key = crypto.createHash('sha256').update(salt).update('\0').update(filename).update('\0').update(source).digest('hex');
    const file = path.join(dir, `${key}.js`);
    try {
      const code = fs.readFileSync(file, 'utf8');
      counts.cached += 1;
      return code;
    } catch {
      // Not compiled yet (or removed by a temporary-folder cleaner).
    }
    const code = compile(source, filename);
    counts.compiled += 1;
    // Written aside, then renamed: a concurrent start never reads half a file.
    const aside = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    try {
      fs.writeFileSync(aside, code, { mode: 0o600 });
      fs.renameSync(aside, file);
    } catch {
      // Full disk, or the folder went away: this start compiled in memory, the next one tries again.
      try {
        fs.unlinkSync(aside); // not left behind half written
      } catch {
        // never made, or already gone
      }
    }
    return code;
  }

  Module._extensions['.ts'] = function loadTypeScript(module, filename) {
    module._compile(load(fs.readFileSync(filename, 'utf8'), filename), filename);
  };
  process.setSourceMapsEnabled(true);
  return { stats: () => ({ ...counts }) };
}

module.exports = { register, swcOptions, isPrivateFolder, defaultCacheDir };
