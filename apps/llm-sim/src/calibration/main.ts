/**
 * `npm run calibrate-sim [-- --dry-run]`: fits sim-chatgpt's and sim-gpt4's answer weights to the official verdicts
 * of ChatGPT zero-shot and DAIL-SQL + GPT-4 on the Spider sample, and writes them into configs/llm-sim.yaml.
 */
import { GoldIndex } from '../gold-index';
import { DEFAULT_SIM_CONFIG_FILE } from '../sim-config';
import type { AnswerWeights } from '../answer-model';
import { HARDNESS_LEVELS } from '../prompt-features';
import { CALIBRATION_TARGETS, calibrationFigures, calibrationProblems, calibrationRows, fitWeights, type RateFigures } from './calibrate';
import { writeModelWeights } from './config-weights';
import { loadCalibrationSet, SPIDER_SAMPLE } from './spider-calibration-set';

const pct = (x: number): string => (100 * x).toFixed(1).padStart(5);
const line = (label: string, r: RateFigures): string => `  ${label.padEnd(10)} ${pct(r.overall)}  ${HARDNESS_LEVELS.map((h) => pct(r.hardness[h])).join('  ')}`;

async function main(): Promise<void> {
  const dryRun = process.argv.includes('--dry-run');
  const set = await loadCalibrationSet();
  const index = new GoldIndex([SPIDER_SAMPLE]);
  const weights: Record<string, AnswerWeights> = {};
  let failed = false;
  for (const target of CALIBRATION_TARGETS) {
    const rows = calibrationRows(set, index, target);
    const fit = fitWeights(rows);
    const figures = calibrationFigures(rows, fit.weights);
    weights[target.model] = fit.weights;
    console.log(`${target.model} against ${target.system} (${rows.length} items, ${target.prompt}); EX in %:`);
    console.log(`  ${''.padEnd(10)} ${'all'.padStart(5)}  ${HARDNESS_LEVELS.map((h) => h.padStart(5)).join('  ')}`);
    console.log(line('official', figures.official));
    console.log(line('simulated', figures.simulated));
    console.log(line('expected', figures.expected));
    console.log(`  fitted: ${fit.fitted.join(', ')}${fit.heldAtPrior.length ? `; held at prior (sign): ${fit.heldAtPrior.join(', ')}` : ''}`);
    console.log(`  draw correction per hardness: ${HARDNESS_LEVELS.map((h) => `${h} ${fit.drawCorrection[h].toFixed(3)}`).join(', ')}`);
    const problems = calibrationProblems(figures, target);
    for (const p of problems) console.error(`  OUT OF RANGE: ${p}`);
    failed ||= problems.length > 0;
  }
  if (failed) throw new Error('calibration missed its targets; configs/llm-sim.yaml left as it was');
  if (dryRun) return;
  writeModelWeights(DEFAULT_SIM_CONFIG_FILE, weights, 'fitted by npm run calibrate-sim (apps/llm-sim/src/calibration) to the Spider sample\'s official verdicts');
  console.log(`wrote the weights of ${Object.keys(weights).join(', ')} into ${DEFAULT_SIM_CONFIG_FILE}`);
}

main().catch((err: Error) => {
  console.error(err.message);
  process.exitCode = 1;
});
