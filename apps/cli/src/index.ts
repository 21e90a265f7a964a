export { buildProgram } from './program';
export { runSweep, type RunOptions } from './commands/run';
