import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { aptInstall, canUseApt, pathDirectories } from '@sqlsweep/infra';
import { repoRoot } from '@sqlsweep/testing';

export const chromiumPath = '/usr/bin/chromium';
export const dashboardScreenshots = join(repoRoot, 'test-output', 'dashboard');

/** Debian's Chromium, installed with apt when missing (idempotent: a no-op once /usr/bin/chromium exists). */
export function ensureChromium(): string {
  if (existsSync(chromiumPath)) return chromiumPath;
  const ctx = { searchDirs: pathDirectories(process.env), log: () => undefined };
  if (!canUseApt(ctx)) {
    throw new Error(`${chromiumPath} is missing and apt-get cannot install it here (it needs Debian/Ubuntu and root): run \`sudo apt-get update && sudo apt-get install -y chromium\``);
  }
  aptInstall(['chromium'], ctx);
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
