import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { repoRoot } from '@sqlsweep/testing';

export const chromiumPath = '/usr/bin/chromium';
export const dashboardScreenshots = join(repoRoot, 'test-output', 'dashboard');

/**
 * Debian's Chromium, installed with apt when missing (idempotent: a no-op once /usr/bin/chromium exists).
 * Installing needs root; anywhere else the error says what to run. Test files run in parallel processes: the install
 * is serialised with flock(1), and whoever comes second finds Chromium there. apt-get update does not wait for a lists
 * lock another apt holds (DPkg::Lock::Timeout covers dpkg's lock only), so it is retried for up to five minutes.
 */
export function ensureChromium(): string {
  if (existsSync(chromiumPath)) return chromiumPath;
  if (process.getuid?.() !== 0) {
    throw new Error(`${chromiumPath} is missing and this process is not root: run \`sudo apt-get update && sudo apt-get install -y chromium\``);
  }
  const install = `test -x ${chromiumPath} && exit 0
    for i in $(seq 60); do apt-get update && break; [ "$i" = 60 ] && exit 1; sleep 5; done
    apt-get -o DPkg::Lock::Timeout=300 install -y --no-install-recommends chromium`;
  execFileSync('flock', ['-w', '900', join(tmpdir(), 'sqlsweep-chromium-install.lock'), 'sh', '-c', install], {
    stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: 1_200_000,
  });
  if (!existsSync(chromiumPath)) throw new Error(`apt-get install chromium finished but ${chromiumPath} does not exist`);
  return chromiumPath;
}

export interface Browser { context: BrowserContext; page: Page; close(): Promise<void> }

/** Headless Chromium with a fresh profile and nothing talking to the network on its own. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = ensureChromium();
  const userDataDir = mkdtempSync(join(tmpdir(), 'sqlsweep-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] ?? await context.newPage();
  return {
    context,
    page,
    close: async () => { await context.close(); rmSync(userDataDir, { recursive: true, force: true }); },
  };
}

/** Full-page screenshot under test-output/dashboard/<name>.png; returns the path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(dashboardScreenshots, { recursive: true });
  const path = join(dashboardScreenshots, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
