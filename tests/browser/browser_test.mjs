// Opens hangscope's flamegraph SVG and HTML report in the system's headless Chromium
// (Debian's chromium, driven by playwright-core; no browser is downloaded) and does
// what a person does: click a frame and check the zoom, search and check the matched
// share, hover and check the tooltip. Screenshots go to the output directory.
//
// usage: node browser_test.mjs --svg FILE --html FILE --folded FILE --out DIR
//        [--chromium /usr/bin/chromium]
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
for (const need of ['svg', 'html', 'folded', 'out']) assert.ok(args[need], `--${need} is required`);
const executablePath = args.chromium || '/usr/bin/chromium';
fs.mkdirSync(args.out, { recursive: true });

// The expected share of a search, from the folded stacks: the weight of the stacks
// with a frame matching the pattern, over all weight.
function expectedShare(pattern) {
  const re = new RegExp(pattern);
  let total = 0;
  let matched = 0;
  for (const line of fs.readFileSync(args.folded, 'utf8').split('\n')) {
    if (!line) continue;
    const sp = line.lastIndexOf(' ');
    const n = Number(line.slice(sp + 1));
    total += n;
    if (line.slice(0, sp).split(';').some((f) => re.test(f))) matched += n;
  }
  return (100 * matched / total).toFixed(2) + '%';
}

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}\n${e.stack || e}`);
  }
}

// Where a frame is on screen, by its name (the script keeps names on the elements).
async function frameBox(page, name) {
  const box = await page.evaluate((n) => {
    const svg = document.querySelector('svg.hs-flame');
    const f = svg.hsFlame.frames.find((x) => x.name === n && !x.g.classList.contains('hide'));
    if (!f) return null;
    f.rect.scrollIntoView({ block: 'center' });
    const r = f.rect.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  }, name);
  assert.ok(box, `frame ${name} is drawn`);
  return box;
}

async function state(page, name) {
  return page.evaluate((n) => {
    const svg = document.querySelector('svg.hs-flame');
    const f = svg.hsFlame.frames.find((x) => x.name === n);
    return {
      hidden: f.g.classList.contains('hide'),
      ancestor: f.g.classList.contains('anc'),
      width: f.rect.getBoundingClientRect().width,
      svgWidth: svg.getBoundingClientRect().width,
      zoomed: svg.classList.contains('zoomed'),
    };
  }, name);
}

const text = (page, sel) => page.evaluate((s) => document.querySelector(s).textContent, sel);

async function exercise(page, label, opts) {
  const shot = (step) => page.screenshot({ path: path.join(args.out, `${label}-${step}.png`), fullPage: opts.fullPage });
  await page.waitForFunction(() => document.querySelector('svg.hs-flame')?.hsFlame !== undefined);
  await shot('1-loaded');

  await check(`${label}: clicking a frame zooms into it, parents stay visible`, async () => {
    const before = await state(page, 'do_fsync');
    assert.ok(before.width < before.svgWidth * 0.8, `do_fsync starts narrower than the picture (${before.width})`);
    const box = await frameBox(page, 'do_fsync');
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    const after = await state(page, 'do_fsync');
    assert.ok(after.zoomed, 'the picture is zoomed');
    assert.ok(Math.abs(after.width - after.svgWidth) < 2, `do_fsync fills the width (${after.width} of ${after.svgWidth})`);
    const parent = await state(page, 'do_syscall_64');
    assert.ok(!parent.hidden && parent.ancestor, 'its parent do_syscall_64 stays visible');
    assert.ok((await state(page, 'do_renameat2')).hidden, 'an unrelated frame is hidden');
    await shot('2-zoomed');
  });

  await check(`${label}: tooltip shows the share of the whole and of the zoomed frame`, async () => {
    const box = await frameBox(page, 'ext4_sync_file');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const tip = await page.evaluate(() => {
      const t = document.querySelector('svg.hs-flame .hs-tip');
      return { visible: t.getAttribute('visibility'), text: Array.from(t.querySelectorAll('tspan'), (s) => s.textContent) };
    });
    assert.equal(tip.visible, 'visible');
    assert.match(tip.text[0], /^ext4_sync_file/);
    assert.match(tip.text[1], /^\d+ samples, \d+\.\d\d% of all, \d+\.\d\d% of zoomed$/);
    assert.ok(tip.text.some((l) => /^average blocked threads: \d/.test(l)), tip.text.join(' | '));
    assert.ok(tip.text.some((l) => /^wait group: \S+/.test(l)), tip.text.join(' | '));
    await shot('3-tooltip-zoomed');
  });

  await check(`${label}: reset zoom brings every frame back`, async () => {
    await page.evaluate(() => document.querySelector('svg.hs-flame .hs-reset').scrollIntoView({ block: 'center' }));
    await page.click('svg.hs-flame .hs-reset');
    const s = await state(page, 'do_renameat2');
    assert.ok(!s.hidden && !s.zoomed, 'unzoomed');
  });

  await check(`${label}: Ctrl-F search highlights matches and shows their share`, async () => {
    const pattern = 'jbd2_';
    const box = await frameBox(page, 'do_syscall_64');
    await page.mouse.move(box.x + 5, box.y + box.height / 2);  // over the picture
    page.once('dialog', (d) => d.accept(pattern));
    await page.keyboard.press('Control+f');
    await page.waitForFunction(() => /Matched/.test(document.querySelector('svg.hs-flame .hs-matched').textContent));
    const matched = await text(page, 'svg.hs-flame .hs-matched');
    assert.equal(matched, 'Matched: ' + expectedShare(pattern));
    const highlighted = await page.evaluate(() => document.querySelectorAll('svg.hs-flame g.f.m').length);
    assert.ok(highlighted > 0, 'matching frames are highlighted');
    const fill = await page.evaluate(() => getComputedStyle(document.querySelector('svg.hs-flame g.f.m rect')).fill);
    assert.equal(fill, 'rgb(225, 0, 225)');
    await shot('4-search');
    await page.keyboard.press('Escape');
    assert.equal((await text(page, 'svg.hs-flame .hs-matched')).trim(), '');
  });

  await check(`${label}: hovering a frame shows frame, samples, blocked threads and group`, async () => {
    const box = await frameBox(page, 'jbd2_log_wait_commit');
    await page.mouse.move(box.x + Math.min(4, box.width / 2), box.y + box.height / 2);
    const lines = await page.evaluate(() =>
      Array.from(document.querySelectorAll('svg.hs-flame .hs-tip tspan'), (s) => s.textContent));
    assert.match(lines[0], /^jbd2_log_wait_commit/);
    assert.match(lines[1], /^\d+ samples, \d+\.\d\d% of all$/);
    assert.match(lines[2], /^average blocked threads: [\d.]+$/);
    assert.match(lines[3], /^wait group: jbd2:/);
    const details = await text(page, 'svg.hs-flame .hs-details');
    assert.match(details, /^jbd2_log_wait_commit/);
    await shot('5-tooltip');
  });
}

const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hangscope-chromium-'));
let context;
try {
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const errors = [];
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  context.on('weberror', (e) => errors.push(String(e.error())));

  const svgPage = await context.newPage();
  svgPage.on('pageerror', (e) => errors.push(String(e)));
  await svgPage.goto(pathToFileURL(path.resolve(args.svg)).href);
  await exercise(svgPage, 'svg', { fullPage: false });

  const htmlPage = await context.newPage();
  htmlPage.on('pageerror', (e) => errors.push(String(e)));
  await htmlPage.goto(pathToFileURL(path.resolve(args.html)).href);
  await check('html: verdict, wait groups, timeline and the waits-on line are shown', async () => {
    const verdict = await text(htmlPage, '.verdict');
    assert.match(verdict, /blocked threads wait on the jbd2 journal/);
    assert.match(await text(htmlPage, '.overview'), /threads were blocked on average/);
    const rows = await htmlPage.evaluate(() => document.querySelectorAll('table.groups tbody tr').length);
    assert.ok(rows >= 3, `${rows} wait groups in the table`);
    const chart = await htmlPage.evaluate(() => {
      const r = document.querySelector('svg.hs-timeline').getBoundingClientRect();
      return { w: r.width, h: r.height, areas: document.querySelectorAll('svg.hs-timeline .hs-area').length };
    });
    assert.ok(chart.w > 600 && chart.h > 150 && chart.areas > 0, JSON.stringify(chart));
    const graph = await htmlPage.evaluate(() => {
      const svg = document.querySelector('#waits-on .graph svg');
      if (!svg) return null;
      const r = svg.getBoundingClientRect();
      return { w: r.width, h: r.height, text: svg.textContent };
    });
    assert.ok(graph && graph.w > 100 && graph.h > 100, JSON.stringify(graph));
    assert.match(graph.text, /jbd2:force-commit/);
    await htmlPage.screenshot({ path: path.join(args.out, 'html-0-page.png'), fullPage: true });
  });
  await exercise(htmlPage, 'html', { fullPage: false });

  await check('no script errors, and nothing was fetched from the network', async () => {
    assert.deepEqual(errors, []);
    const remote = requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'));
    assert.deepEqual(remote, []);
  });
} finally {
  if (context) await context.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
console.log(`screenshots: ${args.out}`);
process.exit(failed ? 1 : 0);
