import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { INestApplication } from '@nestjs/common';
import type { AppEnv } from '@sqlsweep/config';
import { queueNames, type QueueClient } from '@sqlsweep/queue';
import { bearerToken, refusal } from './bearer.guard';

export const QUEUE_BOARD_PATH = '/queues';

interface Req { method: string; headers: { authorization?: string } }
interface Res { status(code: number): { json(body: unknown): void }; setHeader(name: string, value: string): void }

/**
 * The token a board request carries: `Bearer <token>`, or HTTP Basic with the token as the password (any user name),
 * which is what a browser can send to the board's page and its JSON API after asking once.
 */
export function boardToken(authorization: string | undefined): string | undefined {
  const basic = /^Basic (.+)$/.exec(authorization ?? '')?.[1];
  if (basic === undefined) return bearerToken(authorization);
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/**
 * Mounts Bull Board over every queue of the job catalog at /queues, behind the API's bearer rule: job payloads name
 * items and parameters, so the board is a closed read unless SQLSWEEP_OPEN_READS, and its actions need the token.
 */
export function mountQueueBoard(app: INestApplication, env: AppEnv<'orchestrator'>, queue: QueueClient): void {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({ queues: queueNames.map((name) => new BullMQAdapter(queue.queue(name))), serverAdapter });
  app.use(QUEUE_BOARD_PATH, (req: Req, res: Res, next: () => void) => {
    const why = refusal(env, req.method, boardToken(req.headers.authorization));
    if (!why) return next();
    res.setHeader('www-authenticate', 'Basic realm="sqlsweep queues: the API token is the password", charset="UTF-8"');
    res.status(401).json({ error: why });
  });
  app.use(QUEUE_BOARD_PATH, serverAdapter.getRouter());
}
