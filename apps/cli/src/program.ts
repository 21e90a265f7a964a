import { Command } from 'commander';

type Register = (program: Command) => void;

/**
 * The top-level commands, in the order `sqlsweep --help` lists them, each with the modules that register it (both
 * `index` modules add to one `index` command). Loaded on demand: a command's modules bring its libraries, which are
 * most of a start.
 */
const commands: ReadonlyArray<{ name: string; load(): Promise<Register[]> }> = [
  { name: 'run', load: async () => [(await import('./commands/run')).registerRunCommand] },
  { name: 'status', load: async () => [(await import('./commands/status')).registerStatusCommand] },
  { name: 'datasets', load: async () => [(await import('./commands/datasets')).registerDatasetsCommand] },
  { name: 'eval', load: async () => [(await import('./commands/eval')).registerEvalCommand] },
  { name: 'workers', load: async () => [(await import('./commands/workers')).registerWorkersCommand] },
  { name: 'models', load: async () => [(await import('./commands/models')).registerModelsCommand] },
  { name: 'index', load: async () => [(await import('./commands/index-status')).registerIndexStatusCommand, (await import('./commands/index-build')).registerIndexBuildCommand] },
  { name: 'retriever', load: async () => [(await import('./commands/retriever')).registerRetrieverCommand] },
  { name: 'gc', load: async () => [(await import('./commands/gc')).registerGcCommand] },
];

/** The names of the top-level commands, in `sqlsweep --help` order. */
export const commandNames: readonly string[] = commands.map((c) => c.name);

/**
 * The `sqlsweep` program for `argv` (process.argv's shape): when argv names a command, only that command is
 * registered; otherwise (no command, `help`, an option, an unknown name) every command is, so that help and the
 * unknown-command error list them all.
 */
export async function buildProgram(argv: readonly string[] = process.argv): Promise<Command> {
  const program = new Command('sqlsweep')
    .description('experiment sweeps of LLM text-to-SQL pipelines over BullMQ workers, SQLite sandboxes and Postgres')
    .showHelpAfterError();
  const named = commands.find((c) => c.name === argv[2]);
  for (const command of named ? [named] : commands) for (const register of await command.load()) register(program);
  return program;
}
