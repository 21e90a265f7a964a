import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { compileChild, sandboxChildEntry } from './child-entry';

describe('sandboxChildEntry from TypeScript sources', () => {
  it('is plain JavaScript, started without the register hook, in a folder only this user can write to', () => {
    const entry = sandboxChildEntry('sandbox-child');
    expect(entry.modulePath).toMatch(/sandbox-child\.js$/);
    expect(entry.execArgv).toEqual([]);
    expect(dirname(dirname(entry.modulePath))).toBe(tmpdir());
    const folder = lstatSync(dirname(entry.modulePath));
    expect(folder.isDirectory() && (folder.mode & 0o022) === 0 && folder.uid === process.getuid?.()).toBe(true);
  });
});

describe('sandboxChildEntry after a temporary-folder cleaner', () => {
  it('compiles the child again when its folder was removed', () => {
    // A private root: the shared compiled folder other processes use is not touched.
    const root = mkdtempSync(join(tmpdir(), 'sqlsweep-child-entry-'));
    try {
      const first = sandboxChildEntry('sandbox-child', root);
      expect(dirname(dirname(first.modulePath))).toBe(root);
      rmSync(dirname(first.modulePath), { recursive: true, force: true });
      const again = sandboxChildEntry('sandbox-child', root);
      expect(again.modulePath).toBe(first.modulePath);
      expect(existsSync(again.modulePath)).toBe(true);
      // Partly removed (a cleaner took one module the entry loads, not the entry): every file is back.
      const modules = readdirSync(dirname(again.modulePath)).filter((f) => f !== 'sandbox-child.js');
      expect(modules.length).toBeGreaterThan(0);
      rmSync(join(dirname(again.modulePath), modules[0]));
      sandboxChildEntry('sandbox-child', root);
      expect(existsSync(join(dirname(again.modulePath), modules[0]))).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('compileChild', () => {
  it('falls back to the register hook (null) when the compiled child could not load a module, leaving nothing behind', () => {
    const root = mkdtempSync(join(tmpdir(), 'sqlsweep-child-entry-'));
    try {
      const src = join(root, 'src');
      mkdirSync(src);
      writeFileSync(join(root, 'up.ts'), 'export const up = 1;\n');
      writeFileSync(join(src, 'side.ts'), 'export const side = 2;\n');
      writeFileSync(join(src, 'parent.ts'), "import { up } from '../up';\nexport const x = up;\n");
      writeFileSync(join(src, 'workspace.ts'), "import { lexSql } from '@sqlsweep/sql-sandbox';\nexport const x = lexSql;\n");
      writeFileSync(join(src, 'reexport.ts'), "export { side } from './side';\n");
      writeFileSync(join(src, 'fine.ts'), "import { side } from './side';\nimport Database from 'better-sqlite3';\nexport const x = [side, Database];\n");
      for (const entry of ['parent', 'workspace', 'reexport']) expect([entry, compileChild(entry, root, src)]).toEqual([entry, null]);
      expect(readdirSync(root).sort()).toEqual(['src', 'up.ts']);
      const fine = compileChild('fine', root, src);
      expect(fine && existsSync(fine.modulePath) && existsSync(join(dirname(fine.modulePath), 'side.js'))).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
