import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Temporary folders a test file makes (`make`) and removes when it is done (`removeAll`, in an `afterAll`). */
export class TempDirs {
  private readonly made: string[] = [];

  make(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    this.made.push(dir);
    return dir;
  }

  removeAll(): void {
    for (const dir of this.made.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}
