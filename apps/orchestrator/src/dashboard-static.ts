import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { NestExpressApplication } from '@nestjs/platform-express';

/** Where `apps/dashboard/build.ts` writes the dashboard. */
export const defaultDashboardDir = resolve(__dirname, '..', '..', 'dashboard', 'dist');

const notPage = /^\/(api|metrics|queues)(\/|$)/;

interface Req { method: string; path: string; headers: { accept?: string } }
interface Res { sendFile(path: string): void }

/**
 * Serves the built dashboard at `/`; page routes of the single-page app (any other GET asking for HTML) get
 * index.html. Returns false when no build exists (the API still works).
 */
export function serveDashboard(app: NestExpressApplication, dir: string): boolean {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return false;
  app.useStaticAssets(dir, { index: 'index.html' });
  app.use((req: Req, res: Res, next: () => void) => {
    if (req.method === 'GET' && !notPage.test(req.path) && (req.headers.accept ?? '').includes('text/html')) res.sendFile(index);
    else next();
  });
  return true;
}
