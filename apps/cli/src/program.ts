import { Command } from 'commander';
import { registerDatasetsCommand } from './commands/datasets';
import { registerEvalCommand } from './commands/eval';
import { registerGcCommand } from './commands/gc';
import { registerIndexBuildCommand } from './commands/index-build';
import { registerIndexStatusCommand } from './commands/index-status';
import { registerModelsCommand } from './commands/models';
import { registerRetrieverCommand } from './commands/retriever';
import { registerRunCommand } from './commands/run';
import { registerStatusCommand } from './commands/status';
import { registerWorkersCommand } from './commands/workers';

export function buildProgram(): Command {
  const program = new Command('sqlsweep')
    .description('experiment sweeps of LLM text-to-SQL pipelines over BullMQ workers, SQLite sandboxes and Postgres')
    .showHelpAfterError();
  registerRunCommand(program);
  registerStatusCommand(program);
  registerDatasetsCommand(program);
  registerEvalCommand(program);
  registerWorkersCommand(program);
  registerModelsCommand(program);
  registerIndexStatusCommand(program);
  registerIndexBuildCommand(program);
  registerRetrieverCommand(program);
  registerGcCommand(program);
  return program;
}
