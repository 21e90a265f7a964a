import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * Builds the conformance databases under `dir`: `shop/shop.sqlite` and a distilled test-suite variant
 * `shop/shop_variant.sqlite` that differs in one price, so `spider-ts` and `spider-ex` can disagree. Deterministic:
 * the same files every time, so the expected verdicts in cases.ts hold.
 */
export function makeConformanceDatabases(dir: string): string {
  const folder = join(dir, 'shop');
  mkdirSync(folder, { recursive: true });
  const build = (file: string, thirdPrice: number) => {
    const db = new Database(join(folder, file));
    db.exec(`
      CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price INTEGER);
      INSERT INTO item VALUES (1, 'pen', 2), (2, 'ink', 9), (3, 'cap', ${thirdPrice}), (4, 'pad', 9);
      -- invalid UTF-8: 'A', the byte 0xFF, 'B'
      INSERT INTO item VALUES (5, CAST(X'41FF42' AS TEXT), 1);
    `);
    db.close();
  };
  build('shop.sqlite', 7);
  build('shop_variant.sqlite', 4);
  return dir;
}
