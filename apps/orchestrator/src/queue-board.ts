import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { INestApplication } from '@nestjs/common';
import type { AppEnv } from '@sqlsweep/config';
import { queueNames, type QueueClient } from '@sqlsweep/queue';
import { refusal } from './bearer.guard';

export const QUEUE_BOARD_PATH = '/queues';

interface Req { method: string; headers: { authorization?: string } }
interface Res { status(code: number): { json(body: unknown): void } }

/** Mounts Bull Board over every queue of the job catalog at /queues, behind the API's bearer rule. */
export function mountQueueBoard(app: INestApplication, env: AppEnv<'orchestrator'>, queue: QueueClient): void {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({ queues: queueNames.map((name) => new BullMQAdapter(queue.queue(name))), serverAdapter });
  app.use(QUEUE_BOARD_PATH, (req: Req, res: Res, next: () => void) => {
    const why = refusal(env, req.method, req.headers.authorization);
    if (why) res.status(401).json({ error: why });
    else next();
  });
  app.use(QUEUE_BOARD_PATH, serverAdapter.getRouter());
}
