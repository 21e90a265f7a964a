export { baselinesMethod, fewShotGenerate, fewShotTemplate, renderShots } from './few-shot';
export { fixedShots, randomShots, type Shot, type SelectedShots } from './shot-selection';
