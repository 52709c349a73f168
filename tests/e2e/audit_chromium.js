// Opens a `gpulint audit --html` report in headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core from the root package.json) and checks it against the --json
// report of the same run: the charts are drawn and visible, the rules table and the findings
// table count what the JSON counts, nothing is fetched from the network. Saves a full-page
// screenshot.
//
// usage: node audit_chromium.js REPORT.html REPORT.json SCREENSHOT.png
'use strict';
const fs = require('fs');
const path = require('path');
const { chromium } = require(path.join(process.cwd(), 'node_modules', 'playwright-core'));

const [htmlPath, jsonPath, shotPath] = process.argv.slice(2);
if (!htmlPath || !jsonPath || !shotPath) {
  console.error('usage: node audit_chromium.js REPORT.html REPORT.json SCREENSHOT.png');
  process.exit(2);
}
const report = JSON.parse(fs.readFileSync(jsonPath, 'utf8'));
let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok' : 'FAIL'}: ${what}`);
  if (!ok) failures++;
}

(async () => {
  const args = typeof process.getuid === 'function' && process.getuid() === 0 ? ['--no-sandbox'] : [];
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const external = [];
    page.on('request', (req) => {
      const u = req.url();
      if (!u.startsWith('file:') && !u.startsWith('data:') && !u.startsWith('about:')) external.push(u);
    });
    const consoleErrors = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    await page.goto('file://' + path.resolve(htmlPath), { waitUntil: 'load' });

    check(external.length === 0, `no network requests (${external.join(', ') || 'none'})`);
    check(consoleErrors.length === 0, `no console errors (${consoleErrors.join('; ') || 'none'})`);

    // The charts: visible, one bar per rule with the JSON's counts, bars of non-zero size.
    const chart = page.locator('#chart-rules');
    check(await chart.isVisible(), 'the findings-per-rule chart is visible');
    const box = await chart.boundingBox();
    check(box && box.width > 300 && box.height > 20, `chart box ${JSON.stringify(box)}`);
    const bars = await page.$$eval('#chart-rules g.bar', (gs) => gs.map((g) => {
      const r = g.querySelector('rect').getBoundingClientRect();
      return { label: g.dataset.label, count: Number(g.dataset.count), w: r.width, h: r.height };
    }));
    check(bars.length === report.rules.length, `${bars.length} bars for ${report.rules.length} rules`);
    for (const rule of report.rules) {
      const bar = bars.find((b) => b.label.startsWith(rule.code + ' '));
      check(bar && bar.count === rule.count && bar.w > 0 && bar.h > 0,
            `bar ${rule.code}: ${bar ? bar.count : 'missing'} (JSON ${rule.count}), drawn ${bar ? bar.w.toFixed(0) + 'x' + bar.h.toFixed(0) : '-'}`);
    }
    if (bars.length > 1) {
      const widest = Math.max(...bars.map((b) => b.w));
      const top = bars.find((b) => b.count === report.rules[0].count);
      check(top.w === widest, 'the rule with the most findings has the longest bar');
    }
    check(await page.locator('#chart-dirs').isVisible(), 'the findings-per-directory chart is visible');
    const dirBars = await page.$$eval('#chart-dirs g.bar', (gs) => gs.map((g) => ({ label: g.dataset.label, count: Number(g.dataset.count) })));
    const dirsJson = report.top_directories;
    check(dirBars.length === dirsJson.length &&
          dirBars.every((b, i) => b.label === dirsJson[i].path && b.count === dirsJson[i].findings),
          `directory bars equal the JSON's top_directories (${dirBars.length})`);

    // The rules table.
    const ruleRows = await page.$$eval('#rules tbody tr', (trs) => trs.map((tr) => ({
      code: tr.dataset.code, count: Number(tr.querySelector('.count').textContent),
      href: tr.querySelector('a').getAttribute('href') })));
    check(ruleRows.length === report.rules.length, `rules table: ${ruleRows.length} rows`);
    for (const rule of report.rules) {
      const row = ruleRows.find((r) => r.code === rule.code);
      check(row && row.count === rule.count && row.href === rule.url,
            `rules table ${rule.code}: ${row ? row.count : 'missing'} (JSON ${rule.count}), link ${row ? row.href : '-'}`);
    }

    // The findings table: one row per finding, per-rule counts equal the JSON's.
    const rows = await page.$$eval('#findings tbody tr.finding', (trs) => trs.map((tr) => tr.dataset.code));
    check(rows.length === report.findings.length, `findings table: ${rows.length} rows (JSON ${report.findings.length})`);
    check(rows.length === report.summary.findings, `findings table rows equal summary.findings (${report.summary.findings})`);
    const perCode = {};
    for (const c of rows) perCode[c] = (perCode[c] || 0) + 1;
    for (const rule of report.rules)
      check(perCode[rule.code] === rule.count, `findings table ${rule.code}: ${perCode[rule.code]} rows (JSON ${rule.count})`);
    const card = (await page.textContent('#card-findings .n')).replace(/,/g, '');
    check(Number(card) === report.findings.length, `summary card: ${card} findings`);
    const diffs = await page.locator('#findings pre.diff').count();
    const withFix = report.findings.filter((f) => f.fix && f.fix.diff).length;
    check(diffs === withFix, `${diffs} fix diffs shown (JSON ${withFix})`);
    const snippets = await page.locator('#findings pre.snippet').count();
    check(snippets === report.findings.length, `${snippets} source snippets`);

    // The top of the page: cards, both charts, the rules table and the first findings rows.
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.screenshot({ path: shotPath, fullPage: true, clip: { x: 0, y: 0, width: 1280, height: Math.min(height, 2600) } });
    const size = fs.statSync(shotPath).size;
    check(size > 20000, `screenshot ${shotPath} (${size} bytes)`);
  } finally {
    await browser.close();
  }
  if (failures) {
    console.error(`${failures} failure(s)`);
    process.exit(1);
  }
})().catch((e) => { console.error(e); process.exit(1); });
