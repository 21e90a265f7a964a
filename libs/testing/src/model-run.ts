import { randomUUID } from 'node:crypto';
import { RunRepository, type Db } from '@sqlsweep/db';

/** A running run with no stages whose one variant uses `model`: enough for what reads a run's models (pauses). */
export async function createRunUsingModel(db: Db, model: string): Promise<string> {
  const dataset = await db.insertInto('datasets').values({ name: `uses-${model}` }).returning('id').executeTakeFirstOrThrow();
  const version = await db.insertInto('dataset_versions')
    .values({ dataset_id: dataset.id, content_hash: 'c', format: 'minibench', source_path: '-', item_count: 1 })
    .returning('id').executeTakeFirstOrThrow();
  return new RunRepository(db).createRun({
    sweep: { name: `uses-${model}`, source: '-', config: {}, configHash: `uses-${model}` }, datasetVersionId: version.id, priority: 'interactive',
    itemCount: 1, stageJobs: 0, reusedStages: 0, simulated: true,
    variants: [{ id: randomUUID(), variantKey: 'v', label: 'v', pipeline: 'zero-shot', model, sampleIndex: 0, params: {} }],
    stages: [],
  });
}
