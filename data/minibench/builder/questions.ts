import * as fs from 'node:fs';
import { MinibenchBuildError } from './errors';
import { MINIBENCH_DIFFICULTIES, MINIBENCH_SPLITS, type MinibenchDifficulty, type MinibenchSourceQuestion, type MinibenchSplit } from './types';

const QUESTION_FIELDS = ['question', 'evidence', 'SQL', 'difficulty', 'split'] as const;

/** Collapses line breaks and tabs so each gold query fits on one line of the *_gold.sql files. */
export function toOneLine(sql: string): string {
  return sql
    .trim()
    .replace(/;\s*$/, '')
    .replace(/\s*[\r\n\t]+\s*/g, ' ')
    .trim();
}

export function readQuestions(file: string): MinibenchSourceQuestion[] {
  if (!fs.existsSync(file)) throw new MinibenchBuildError(file, 'missing file');
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new MinibenchBuildError(file, `invalid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new MinibenchBuildError(file, 'top level must be an array of questions');
  const seen = new Map<string, number>();
  return parsed.map((raw: unknown, index) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new MinibenchBuildError(file, 'must be an object', index);
    }
    const obj = raw as Record<string, unknown>;
    for (const field of QUESTION_FIELDS) {
      if (typeof obj[field] !== 'string') throw new MinibenchBuildError(file, `field "${field}" missing or not a string`, index);
    }
    const extra = Object.keys(obj).filter((k) => !(QUESTION_FIELDS as readonly string[]).includes(k));
    if (extra.length > 0) throw new MinibenchBuildError(file, `unknown field(s): ${extra.join(', ')}`, index);
    const q = obj as Record<(typeof QUESTION_FIELDS)[number], string>;
    if (q.question.trim() === '') throw new MinibenchBuildError(file, 'field "question" is empty', index);
    if (q.SQL.trim() === '') throw new MinibenchBuildError(file, 'field "SQL" is empty', index);
    if (!(MINIBENCH_DIFFICULTIES as readonly string[]).includes(q.difficulty)) {
      throw new MinibenchBuildError(file, `unknown difficulty "${q.difficulty}" (expected ${MINIBENCH_DIFFICULTIES.join('/')})`, index);
    }
    if (!(MINIBENCH_SPLITS as readonly string[]).includes(q.split)) {
      throw new MinibenchBuildError(file, `unknown split "${q.split}" (expected ${MINIBENCH_SPLITS.join('/')})`, index);
    }
    const key = q.question.trim().toLowerCase();
    const previous = seen.get(key);
    if (previous !== undefined) throw new MinibenchBuildError(file, `same question as item ${previous}`, index);
    seen.set(key, index);
    return {
      question: q.question.trim(),
      evidence: q.evidence.trim(),
      SQL: toOneLine(q.SQL),
      difficulty: q.difficulty as MinibenchDifficulty,
      split: q.split as MinibenchSplit,
    };
  });
}

