// The API reference page in a real headless browser (Debian chromium driven by playwright-core): it renders
// every route group of the gateway's own OpenAPI document, with no request leaving the machine.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../src/http/catalog.ts';
import { startGateway, type TestGateway, tempDir } from './support/gateway.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let gw: TestGateway;
let browser: Browser;

beforeAll(async () => {
  gw = await startGateway();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
});

describe('GET /docs', () => {
  it('redirects / to the reference page', async () => {
    const r = await fetch(`${gw.origin}/`, { redirect: 'manual' });
    expect(r.status).toBe(302);
    expect(r.headers.get('location')).toBe('/docs');
  });

  it('renders every route group from /v1/openapi.json in headless Chromium, offline', async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    page.on('request', (req) => {
      if (!req.url().startsWith(gw.origin)) foreign.push(req.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${gw.origin}/docs`);
    const tags = [...new Set(Object.values(ROUTES).map((r) => r.tag))];
    for (const tag of tags) {
      await page.locator(`.opblock-tag-section h3[data-tag="${tag}"]`).waitFor({ timeout: 20_000 });
    }
    // Every operation of the catalog is listed (one block per method and path).
    const blocks = await page.locator('.opblock').count();
    expect(blocks).toBeGreaterThanOrEqual(Object.keys(ROUTES).length - 2);
    await expect(page.locator('a[href="/launchpad/api/errors-and-limits"]').count()).resolves.toBe(1);
    const shot = join(tempDir(), 'docs.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(existsSync(shot) && statSync(shot).size).toBeGreaterThan(10_000);
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  }, 60_000);
});
