import type { AnswerWeights } from '../answer-model';
import { GoldIndex } from '../gold-index';
import { DEFAULT_SIM_CONFIG_FILE, loadSimConfig } from '../sim-config';
import { CALIBRATION_TARGETS, calibrationFigures, calibrationProblems, calibrationRows, fitWeights, type CalibrationRow, type CalibrationTarget } from './calibrate';
import { loadCalibrationSet, SPIDER_SAMPLE } from './spider-calibration-set';

/** The Spider sample's 297 items, read as the simulator reads them, for each calibrated model. */
describe('simulated models calibrated against real systems on the Spider sample (configs/llm-sim.yaml)', () => {
  const config = loadSimConfig(DEFAULT_SIM_CONFIG_FILE);
  const rows = new Map<string, CalibrationRow[]>();
  const weightsOf = (model: string): AnswerWeights => {
    const weights = config.models[model]?.weights;
    if (!weights) throw new Error(`${DEFAULT_SIM_CONFIG_FILE}: ${model} has no weights (run npm run calibrate-sim)`);
    return weights;
  };
  const [chatgpt, gpt4] = CALIBRATION_TARGETS as [CalibrationTarget, CalibrationTarget];

  beforeAll(async () => {
    const set = await loadCalibrationSet();
    const index = new GoldIndex([SPIDER_SAMPLE]);
    for (const target of CALIBRATION_TARGETS) rows.set(target.model, calibrationRows(set, index, target));
  });

  it('reads 297 items: the zero-shot prompts show the whole schema and no example, the DAIL prompts five examples', () => {
    const zeroShot = rows.get(chatgpt.model)!;
    const dail = rows.get(gpt4.model)!;
    expect(zeroShot).toHaveLength(297);
    expect(zeroShot.every((r) => r.features.goldReachable && r.features.schemaRecall === 1 && r.features.examples === 0)).toBe(true);
    expect(dail.every((r) => r.features.examples === 5)).toBe(true);
    expect(dail.filter((r) => r.features.skeletonMatch).length).toBeGreaterThan(50);
  });

  it.each(CALIBRATION_TARGETS.map((t) => [t.model, t.system, t] as const))('%s scores as %s does, overall and per hardness', (model, _system, target) => {
    const figures = calibrationFigures(rows.get(model)!, weightsOf(model));
    expect(calibrationProblems(figures, target)).toEqual([]);
  });

  it.each(CALIBRATION_TARGETS.map((t) => [t.model] as const))('the weights of %s are what npm run calibrate-sim fits', (model) => {
    expect(fitWeights(rows.get(model)!).weights).toEqual(weightsOf(model));
  });

  it('rejects weights that are not fitted to the system: sim-strong\'s on the DAIL prompts, sim-gpt4\'s on the zero-shot ones, a shifted intercept', () => {
    const zeroShot = rows.get(chatgpt.model)!;
    expect(calibrationProblems(calibrationFigures(rows.get(gpt4.model)!, weightsOf('sim-strong')), gpt4)).not.toEqual([]);
    expect(calibrationProblems(calibrationFigures(zeroShot, weightsOf(gpt4.model)), chatgpt)).not.toEqual([]);
    const shifted = { ...weightsOf(chatgpt.model), intercept: weightsOf(chatgpt.model).intercept + 0.4 };
    expect(calibrationProblems(calibrationFigures(zeroShot, shifted), chatgpt)).not.toEqual([]);
  });
});
