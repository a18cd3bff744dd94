// Drives headless Debian Chromium through lists of steps. Each line on stdin is one plan (JSON);
// for each, one line on stdout: per step, what it collected, its console errors and its
// screenshot. One browser serves every plan of a run (starting Chromium is most of a short
// plan's time); each plan gets a context of its own, which shares no cookies, storage or cache
// with any other (as a fresh profile would not).
//
// plan: {base, out_dir, chromium, steps}
// step: {name, goto?, wait?, fill?: [sel, value], select?: [sel, value], click?, press?: [sel, key],
//        drag?: [sel, dx, dy, 'centre'?], eval?: "js expression", screenshot?: "file.png", timeout?: ms}
import { chromium } from 'playwright-core';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

let browser;
let launchFailure;

async function launch(executablePath) {
  if (browser || launchFailure) return;
  try {
    browser = await chromium.launch({
      executablePath: executablePath || '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      timeout: 30000,
    });
  } catch (err) {
    launchFailure = String(err && err.stack || err);
  }
}

async function run(plan) {
  const results = { steps: [] };
  await launch(plan.chromium);
  if (launchFailure) return { ...results, launch_failure: launchFailure };
  let context;
  try {
    context = await browser.newContext({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    let errors = [];
    page.on('console', (msg) => { if (msg.type() === 'error') errors.push(`console: ${msg.text()} @ ${msg.location().url}`); });
    page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
    page.on('requestfailed', (req) => errors.push(`requestfailed: ${req.method()} ${req.url()} ${req.failure()?.errorText}`));
    page.on('response', (resp) => { if (resp.status() >= 400) errors.push(`http ${resp.status()}: ${resp.request().method()} ${resp.url()}`); });
    for (const step of plan.steps) {
      errors = [];
      const out = { name: step.name };
      const timeout = step.timeout || 20000;
      try {
        if (step.goto) await page.goto(new URL(step.goto, plan.base).href, { waitUntil: 'load', timeout });
        if (step.fill) await page.fill(step.fill[0], step.fill[1], { timeout });
        if (step.select) await page.selectOption(step.select[0], step.select[1], { timeout });
        if (step.click) await page.click(step.click, { timeout });
        if (step.press) await page.press(step.press[0], step.press[1], { timeout });
        if (step.drag) {
          const box = await page.locator(step.drag[0]).boundingBox({ timeout });
          // from the element's centre, or (for a background) near its bottom-left corner
          const centre = step.drag[3] === 'centre';
          const x = centre ? box.x + box.width / 2 : box.x + 20;
          const y = centre ? box.y + box.height / 2 : box.y + box.height - 40;
          await page.mouse.move(x, y);
          await page.mouse.down();
          await page.mouse.move(x + step.drag[1], y + step.drag[2], { steps: 8 });
          await page.mouse.up();
        }
        if (step.wait) await page.waitForSelector(step.wait, { timeout });
        if (step.eval) out.value = await page.evaluate(step.eval);
        // let late requests of the page (e.g. the catalog) settle before judging the console
        await page.waitForLoadState('networkidle', { timeout }).catch(() => {});
        if (step.screenshot) {
          out.screenshot = join(plan.out_dir, step.screenshot);
          await page.screenshot({ path: out.screenshot, fullPage: true });
        }
      } catch (err) {
        out.failure = String(err && err.message || err).split('\n').slice(0, 6).join('\n');
        try {
          out.screenshot = join(plan.out_dir, `FAILED-${step.name}.png`);
          await page.screenshot({ path: out.screenshot, fullPage: true });
          out.html = (await page.content()).slice(0, 4000);
        } catch { /* the page itself is gone */ }
      }
      out.errors = errors;
      results.steps.push(out);
      if (out.failure) break;
    }
  } catch (err) {
    results.launch_failure = String(err && err.stack || err);
  } finally {
    if (context) await context.close().catch(() => {});
  }
  return results;
}

// one plan at a time, in the order they arrive
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  process.stdout.write(JSON.stringify(await run(JSON.parse(line))) + '\n');
}
if (browser) await browser.close().catch(() => {});
