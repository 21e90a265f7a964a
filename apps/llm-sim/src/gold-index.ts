import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { decompositionOf } from './decomposition';

export interface GoldItem {
  question: string;
  evidence?: string;
  sql: string;
  dbId: string;
  /** Absolute path of the item's SQLite database, when the dataset ships it. */
  dbFile?: string;
  /** BIRD's difficulty field (simple, moderate, challenging), when the dataset ships it. */
  difficulty?: string;
}

const QUESTION_FILES = ['dev.json', 'train.json', 'train_spider.json', 'train_others.json', 'test.json'];
const DATABASE_DIRS = ['dev_databases', 'train_databases', 'test_databases', 'database'];

export function normalizeQuestion(q: string): string {
  return q.trim().replace(/\s+/g, ' ').toLowerCase();
}

function readItems(file: string, dir: string): GoldItem[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`llm-sim: cannot read questions from ${file}: ${(err as Error).message}`);
  }
  if (!Array.isArray(raw)) throw new Error(`llm-sim: ${file}: expected a JSON array of questions`);
  return raw.map((entry: unknown, i) => {
    const e = entry as Record<string, unknown>;
    const sql = typeof e.SQL === 'string' ? e.SQL : e.query;
    // Spider-Syn's items carry the question a sweep asks as SpiderSynQuestion (beside Spider's own).
    const question = typeof e.SpiderSynQuestion === 'string' ? e.SpiderSynQuestion : e.question;
    if (typeof question !== 'string' || typeof sql !== 'string' || typeof e.db_id !== 'string') {
      throw new Error(`llm-sim: ${file}: item ${i} needs string fields question (or SpiderSynQuestion), db_id and SQL (BIRD) or query (Spider)`);
    }
    const dbFile = DATABASE_DIRS.map((d) => join(dir, d, e.db_id as string, `${e.db_id as string}.sqlite`)).find((f) => existsSync(f));
    const item: GoldItem = { question, sql: sql.trim(), dbId: e.db_id };
    if (typeof e.evidence === 'string' && e.evidence.trim()) item.evidence = e.evidence;
    if (dbFile) item.dbFile = dbFile;
    if (typeof e.difficulty === 'string' && e.difficulty.trim()) item.difficulty = e.difficulty.trim().toLowerCase();
    return item;
  });
}

interface SubQuestionIndex {
  /** Normalised sub-question to the items whose decomposition holds it. */
  items: Map<string, GoldItem[]>;
  /** Distinct sub-questions of each indexed item. */
  stepCount: Map<GoldItem, number>;
}

/** The entries of the last list numbered from 1 in the text ("1. ...", "2) ..."), in order. */
function lastNumberedList(text: string): string[] {
  const lines = text.split('\n');
  for (let start = lines.length - 1; start >= 0; start--) {
    if (!/^\s*1[.)]\s+\S/.test(lines[start]!)) continue;
    const entries: string[] = [];
    for (let i = start; i < lines.length; i++) {
      const m = /^\s*(\d+)[.)]\s+(.+)$/.exec(lines[i]!);
      if (!m || Number(m[1]) !== entries.length + 1) break;
      entries.push(m[2]!);
    }
    return entries;
  }
  return [];
}

export interface DbSchema {
  tables: string[];
  columns: string[];
  /** Lower-cased table name to its columns. */
  columnsByTable: Map<string, string[]>;
}

/** Gold SQL by question, learnt from BIRD- or Spider-layout dataset folders. */
export class GoldIndex {
  private readonly byQuestion = new Map<string, GoldItem[]>();
  private readonly columnsByDb = new Map<string, DbSchema>();
  private subQuestions?: SubQuestionIndex;
  readonly size: number;

  constructor(readonly dirs: readonly string[]) {
    let count = 0;
    for (const dir of dirs) {
      const files = QUESTION_FILES.map((f) => join(dir, f)).filter((f) => existsSync(f));
      if (files.length === 0) throw new Error(`llm-sim: ${dir}: no ${QUESTION_FILES.join(' / ')} found (expected a BIRD or Spider layout)`);
      for (const file of files) {
        for (const item of readItems(file, dir)) {
          const key = normalizeQuestion(item.question);
          const list = this.byQuestion.get(key) ?? [];
          list.push(item);
          this.byQuestion.set(key, list);
          count++;
        }
      }
    }
    this.size = count;
  }

  /**
   * The target item of a conversation: the known question occurring last in the text. `Question:` lines
   * are tried first (cheap, exact); then the text's last numbered list, as the sub-questions the simulator gave for
   * an item (R3's generation prompt shows them instead of the question); otherwise every known question is searched
   * for as a substring.
   */
  findTarget(text: string): GoldItem | undefined {
    const lines = text.split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      const m = /^\s*(?:#+\s*|-{2}\s*)?Question\s*:\s*(.+)$/i.exec(lines[i]!);
      if (m) {
        const items = this.byQuestion.get(normalizeQuestion(m[1]!));
        if (items) return this.disambiguate(items, text);
      }
    }
    const decomposed = this.findBySubQuestions(text);
    if (decomposed) return decomposed;
    const haystack = normalizeQuestion(text);
    let best: { at: number; items: GoldItem[] } | undefined;
    for (const [q, items] of this.byQuestion) {
      const at = haystack.lastIndexOf(q);
      if (at >= 0 && (!best || at > best.at || (at === best.at && q.length > normalizeQuestion(best.items[0]!.question).length))) {
        best = { at, items };
      }
    }
    return best ? this.disambiguate(best.items, text) : undefined;
  }

  /**
   * The item whose decomposition (decompositionOf) the text's last numbered list is: every listed step one of its
   * sub-questions, and at most one of them missing (a wrong simulated answer leaves one out). An item whose steps are
   * all listed wins over one missing a step; several such items are told apart by evidence and schema. A single
   * step that is itself a known question is left to the question search.
   */
  private findBySubQuestions(text: string): GoldItem | undefined {
    const steps = [...new Set(lastNumberedList(text).map(normalizeQuestion))];
    if (steps.length === 0 || (steps.length === 1 && this.byQuestion.has(steps[0]!))) return undefined;
    const index = this.subQuestionIndex();
    const hits = new Map<GoldItem, number>();
    for (const step of steps) for (const item of index.items.get(step) ?? []) hits.set(item, (hits.get(item) ?? 0) + 1);
    const fitting = [...hits].filter(([item, n]) => n === steps.length && index.stepCount.get(item)! - n <= 1).map(([item]) => item);
    if (fitting.length === 0) return undefined;
    const complete = fitting.filter((item) => index.stepCount.get(item) === steps.length);
    return this.disambiguate(complete.length > 0 ? complete : fitting, text);
  }

  private subQuestionIndex(): SubQuestionIndex {
    if (this.subQuestions) return this.subQuestions;
    const index: SubQuestionIndex = { items: new Map(), stepCount: new Map() };
    for (const items of this.byQuestion.values()) {
      for (const item of items) {
        const steps = new Set(decompositionOf(item.question).map(normalizeQuestion));
        if (steps.size < 2) continue; // a one-step decomposition is the question itself
        index.stepCount.set(item, steps.size);
        for (const step of steps) {
          const list = index.items.get(step) ?? [];
          list.push(item);
          index.items.set(step, list);
        }
      }
    }
    return (this.subQuestions = index);
  }

  /** Same question text in several databases: prefer the one whose tables the prompt's schema names. */
  private disambiguate(items: GoldItem[], text: string): GoldItem {
    if (items.length === 1) return items[0]!;
    const lower = text.toLowerCase();
    let best = items[0]!;
    let bestScore = -1;
    for (const item of items) {
      const evidenceHit = item.evidence && lower.includes(item.evidence.toLowerCase()) ? 100 : 0;
      const tableHits = this.schemaOf(item).tables.filter((t) => lower.includes(`table ${t.toLowerCase()}`) || lower.includes(`"${t.toLowerCase()}"`)).length;
      const score = evidenceHit + tableHits;
      if (score > bestScore) {
        best = item;
        bestScore = score;
      }
    }
    return best;
  }

  /** Columns of the tables the item's gold SQL reads: the plausible wrong columns for it. */
  columnsNear(item: GoldItem): string[] {
    const schema = this.schemaOf(item);
    const used = [...item.sql.matchAll(/\b(?:FROM|JOIN)\s+[`"]?(\w+)[`"]?/gi)].map((m) => m[1]!.toLowerCase());
    const near = [...new Set(used)].flatMap((t) => schema.columnsByTable.get(t) ?? []);
    return near.length > 0 ? near : schema.columns;
  }

  schemaOf(item: GoldItem): DbSchema {
    const cached = this.columnsByDb.get(item.dbFile ?? item.dbId);
    if (cached) return cached;
    const schema: DbSchema = { tables: [], columns: [], columnsByTable: new Map() };
    if (item.dbFile) {
      const db = new Database(item.dbFile, { readonly: true, fileMustExist: true });
      try {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>;
        for (const { name } of tables) {
          schema.tables.push(name);
          const cols = db.prepare(`PRAGMA table_info("${name.replace(/"/g, '""')}")`).all() as Array<{ name: string }>;
          schema.columns.push(...cols.map((c) => c.name));
          schema.columnsByTable.set(name.toLowerCase(), cols.map((c) => c.name));
        }
      } finally {
        db.close();
      }
    }
    this.columnsByDb.set(item.dbFile ?? item.dbId, schema);
    return schema;
  }
}
