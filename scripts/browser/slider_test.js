// Drives a GoNB notebook in the classic Jupyter Notebook (6.x) with headless Debian Chromium
// (playwright-core, no browser download): runs the cells up to the one tagged `interactive`, waits
// for its slider, moves it and checks that the first SVG in that cell's output changes. If the
// widget cell has a "Done" button (gonbext.Tune), it then clicks it, checks that the cell ends with
// a static copy of its figures, saves the notebook through the page (as a user would) and writes
// the saved notebook, read back through Jupyter's contents API, to <OUT_DIR>/<name>_saved.ipynb
// (test-browser.sh --update copies the widget cell's outputs from it into the committed notebook).
// Started by scripts/test-browser.sh, which runs the Jupyter server. Environment:
//   JUPYTER_PORT, JUPYTER_TOKEN  the server;   NB_PATH  notebook path relative to the server root;
//   OUT_DIR    screenshots and SVGs;           WORK_DIR scratch dir (Chromium profile);
//   BROWSER_TIMEOUT  seconds for the cells before the slider (default 900);
//   WIDGET_TIMEOUT   seconds from the slider appearing to an SVG in the widget cell (default 60);
//   SLIDER_ATTEMPTS  tries of the widget cell (default 3: GoNB's comm_open race, see below);
//   SVG_CHANGE_TIMEOUT seconds to wait for the SVG to change after moving the slider (default 20);
//   DONE_TIMEOUT     seconds from clicking "Done" to the cell's end and the notebook's save (default 60);
//   SIMULATE_SLOW_ACK=1 freezes the kernel when the widget first connects (tests the retry).
// Exit code: 0 passed, 1 failed (see the log and <name>_failure.png).
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

const port = process.env.JUPYTER_PORT;
const token = process.env.JUPYTER_TOKEN;
const nbPath = process.env.NB_PATH || 'notebooks/02_tuning_lambda.ipynb';
const outDir = process.env.OUT_DIR || '/tmp/quce-browser';
const workDir = process.env.WORK_DIR || os.tmpdir();
const cellsTimeout = 1000 * Number(process.env.BROWSER_TIMEOUT || 900);
const attempts = Number(process.env.SLIDER_ATTEMPTS || 3);
const changeTimeout = 1000 * Number(process.env.SVG_CHANGE_TIMEOUT || 20);
const widgetTimeout = 1000 * Number(process.env.WIDGET_TIMEOUT || 60);
const doneTimeout = 1000 * Number(process.env.DONE_TIMEOUT || 60);
if (!port || !token) {
  console.error('slider_test.js: JUPYTER_PORT and JUPYTER_TOKEN must be set (use scripts/test-browser.sh)');
  process.exit(2);
}
const name = path.basename(nbPath, '.ipynb');
const outFile = suffix => path.join(outDir, `${name}_${suffix}`);
const url = `http://127.0.0.1:${port}/notebooks/${nbPath.split('/').map(encodeURIComponent).join('/')}?token=${token}`;
const t0 = Date.now();
const log = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s]`, ...a);

// --- In-page helpers (run inside the notebook page through page.evaluate) ------------------------

// Index of the widget cell: first cell tagged "interactive", else the first whose code makes a
// slider; -1 if none.
function findWidgetCell() {
  const cells = Jupyter.notebook.get_cells();
  let i = cells.findIndex(c => c.cell_type === 'code' && ((c.metadata && c.metadata.tags) || []).includes('interactive'));
  if (i < 0) i = cells.findIndex(c => c.cell_type === 'code' && /Slider\s*\(/.test(c.get_text()));
  return i;
}

// State of cells [0, upto]: first error output (text) if any, and whether the kernel is busy.
function cellsState(upto) {
  const cells = Jupyter.notebook.get_cells().slice(0, upto + 1);
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i];
    if (c.cell_type !== 'code') continue;
    for (const o of c.output_area.outputs) {
      const text = o.output_type === 'error' ? `${o.ename}: ${o.evalue}`
        : (o.output_type === 'stream' && /^exit status \d+\s*$/m.test(o.text)) ? o.text : null;
      if (text) return { error: `cell ${i}: ${text.replace(/\x1b\[[0-9;]*m/g, '').slice(-1500)}` };
    }
  }
  return { error: null };
}

// The slider to move in cell i: a range input whose id, name, aria-label or label mentions lambda3;
// else the last range input. Returns a CSS selector (giving it an id if it has none) or null.
function pickSlider(i) {
  const el = Jupyter.notebook.get_cell(i).element[0];
  const inputs = Array.from(el.querySelectorAll('.output_area input[type=range]'));
  if (!inputs.length) return null;
  const labelOf = inp => {
    const parts = [inp.id, inp.name, inp.getAttribute('aria-label') || '', inp.title || ''];
    if (inp.id) document.querySelectorAll(`label[for="${CSS.escape(inp.id)}"]`).forEach(l => parts.push(l.textContent));
    const enclosing = inp.closest('label');
    if (enclosing) parts.push(enclosing.textContent);
    return parts.join(' ');
  };
  const matched = inputs.find(x => /lambda[\s_-]*3|λ\s*3|λ₃/i.test(labelOf(x)));
  const inp = matched || inputs[inputs.length - 1];
  if (!inp.id) inp.id = 'quce-test-slider-' + Math.random().toString(36).slice(2);
  return { selector: '#' + CSS.escape(inp.id), label: labelOf(inp).replace(/\s+/g, ' ').trim().slice(0, 120),
           value: inp.value, min: inp.min, max: inp.max, count: inputs.length, matched: !!matched };
}

// innerHTML of the first <svg> in cell i's output (null if none).
function firstSvg(i) {
  const svg = Jupyter.notebook.get_cell(i).element[0].querySelector('.output_area svg');
  return svg ? svg.innerHTML : null;
}

// Cell i's outputs: for each, its type and whether it holds an SVG or an image.
function cellOutputs(i) {
  return Jupyter.notebook.get_cell(i).output_area.outputs.map(o => {
    const d = o.data || {};
    const html = [].concat(d['text/html'] || []).join('');
    return { type: o.output_type, image: !!(d['image/svg+xml'] || d['image/png']) || /<svg[\s>]/.test(html) };
  });
}

// Saves the notebook through the page (Jupyter's own save, as File > Save would) and resolves when
// the server has it.
function saveNotebook() {
  return new Promise((resolve, reject) => {
    Jupyter.notebook.events.one('notebook_saved.Notebook', () => resolve(true));
    Jupyter.notebook.events.one('notebook_save_failed.Notebook', (e, d) => reject(new Error('notebook_save_failed: ' + JSON.stringify(d).slice(0, 300))));
    Jupyter.notebook.save_notebook();
  });
}

// --- Main -----------------------------------------------------------------------------------------
(async () => {
  fs.mkdirSync(outDir, { recursive: true });
  for (const s of ['before.png', 'after.png', 'done.png', 'failure.png', 'failure_page.png', 'before.svg', 'after.svg', 'saved.ipynb']) fs.rmSync(outFile(s), { force: true });
  const userDataDir = fs.mkdtempSync(path.join(workDir, 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1200, height: 1000 },
  });
  const page = context.pages()[0] || await context.newPage();
  let commFailed = false; // GoNB's front end reported that its comm to the kernel failed
  page.on('console', m => {
    if (/gonb_comm: failed to connect|Communication to GoNB not setup/.test(m.text())) commFailed = true;
    if (/^Comm promise not found/.test(m.text()) && !process.env.ALLCONSOLE) return; // harmless GoNB noise
    if (process.env.ALLCONSOLE || m.type() === 'error' || /gonb|comm/i.test(m.text())) log(`[console.${m.type()}]`, m.text().slice(0, 300));
  });
  if (process.env.SIMULATE_SLOW_ACK) {
    // Test of the retry path: when the kernel sends GoNB's websocket JavaScript to the page, freeze
    // the kernel for 1.5 s, so the page's "comm_open" is not acknowledged within GoNB's 500 ms (as
    // happens now and then on a loaded machine).
    let injected = false;
    page.on('websocket', ws => {
      const m = ws.url().match(/kernels\/([0-9a-f-]+)\/channels/);
      if (!m) return;
      ws.on('framereceived', f => {
        if (injected || typeof f.payload !== 'string' || !f.payload.includes('_connect_to_gonb')) return;
        injected = true;
        const pid = fs.readdirSync('/proc').filter(d => /^\d+$/.test(d)).find(d => {
          try { return fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(`kernel-${m[1]}.json`); } catch { return false; }
        });
        if (!pid) return log('SIMULATE_SLOW_ACK: kernel pid not found');
        log(`SIMULATE_SLOW_ACK: stopping kernel pid ${pid} for 1.5 s`);
        process.kill(+pid, 'SIGSTOP');
        setTimeout(() => process.kill(+pid, 'SIGCONT'), 1500);
      });
    });
  }
  page.on('pageerror', e => log('[pageerror]', String(e).slice(0, 300)));

  let widgetCell = -1;
  const outputWrapper = () => page.locator('#notebook-container .cell').nth(widgetCell).locator('.output_wrapper');
  // Screenshot of the widget cell's whole output. The classic notebook scrolls an inner element
  // (#site) and folds long outputs into a scroll box, so unfold it and make the viewport tall
  // enough for the whole output before the shot.
  const shoot = async tag => {
    await page.evaluate(i => { const c = Jupyter.notebook.get_cell(i); if (c.output_area.unscroll_area) c.output_area.unscroll_area(); }, widgetCell);
    const loc = outputWrapper();
    const box = await loc.boundingBox();
    if (box) await page.setViewportSize({ width: 1200, height: Math.min(8000, Math.max(1000, Math.ceil(box.height) + 300)) });
    await loc.scrollIntoViewIfNeeded().catch(() => {});
    await loc.screenshot({ path: outFile(tag + '.png') });
    log('screenshot', outFile(tag + '.png'));
  };

  // Waits until the widget cell's output shows a range input (returns pickSlider's answer) or
  // timeoutMs passes (returns null). Fails fast on error outputs in cells 0..widgetCell.
  const waitForSlider = async (timeoutMs, what) => {
    const deadline = Date.now() + timeoutMs;
    let firstSeen = 0;
    for (;;) {
      const st = await page.evaluate(cellsState, widgetCell);
      if (st.error) throw new Error(`error output while ${what}: ${st.error}`);
      const sl = await page.evaluate(pickSlider, widgetCell);
      // Sliders appear one by one: give the λ3 one a few seconds before falling back.
      if (sl && !firstSeen) firstSeen = Date.now();
      if (sl && (sl.matched || Date.now() - firstSeen > 5000)) return sl;
      if (Date.now() > deadline) return sl;
      await page.waitForTimeout(250);
    }
  };

  // Waits until the widget cell's output has an SVG (true), or false after timeoutMs or as soon as
  // GoNB's front end reports a failed comm (the widget would never sync).
  const waitForSvg = async timeoutMs => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && !commFailed) {
      const st = await page.evaluate(cellsState, widgetCell);
      if (st.error) throw new Error('error output in the widget cell: ' + st.error);
      if (await page.evaluate(firstSvg, widgetCell) !== null) return true;
      await page.waitForTimeout(250);
    }
    return false;
  };

  // Moves the slider (mouse drag, then keyboard if the drag did not change the value).
  const moveSlider = async sl => {
    const loc = page.locator(sl.selector);
    await loc.scrollIntoViewIfNeeded();
    const min = Number(sl.min || 0), max = Number(sl.max || 100), v0 = Number(await loc.inputValue());
    const frac = (v0 - min) / ((max - min) || 1);
    const target = frac < 0.5 ? 0.85 : 0.15;
    const box = await loc.boundingBox();
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width * Math.min(Math.max(frac, 0.02), 0.98), y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * target, y, { steps: 8 });
    await page.mouse.up();
    let v1 = Number(await loc.inputValue());
    if (v1 === v0) {
      log('mouse drag did not move the slider; using the keyboard');
      await loc.focus();
      for (let k = 0; k < 10; k++) await page.keyboard.press(target > 0.5 ? 'ArrowRight' : 'ArrowLeft');
      await page.keyboard.press(target > 0.5 ? 'PageUp' : 'PageDown');
      v1 = Number(await loc.inputValue());
    }
    return { v0, v1 };
  };

  // Resolves true when the first SVG of the widget cell differs from `ref` (false on timeout).
  const waitSvgChange = (ref, timeoutMs) => page.waitForFunction(([i, r]) => {
    const svg = Jupyter.notebook.get_cell(i).element[0].querySelector('.output_area svg');
    return svg && svg.innerHTML !== r;
  }, [widgetCell, ref], { timeout: timeoutMs, polling: 20 }).then(() => true, () => false);

  // Waits until the first SVG of the widget cell has not changed for quietMs (at most maxMs).
  const waitSvgSettled = async (quietMs, maxMs) => {
    const end = Date.now() + maxMs;
    let last = await page.evaluate(firstSvg, widgetCell), since = Date.now();
    while (Date.now() < end && Date.now() - since < quietMs) {
      await page.waitForTimeout(100);
      const cur = await page.evaluate(firstSvg, widgetCell);
      if (cur !== last) { last = cur; since = Date.now(); }
    }
  };

  // "Done" (gonbext.Tune): the session ends and leaves a static copy of the last figures in the
  // cell. Clicks it, waits for the cell to end with an image output, saves the notebook through the
  // page and writes what the server saved to <name>_saved.ipynb. A widget cell without a "Done"
  // button (it listens until interrupted, like notebook 00's) is left as it is.
  const finishAndSave = async () => {
    const done = page.locator('#notebook-container .cell').nth(widgetCell)
      .locator('.output_area button', { hasText: /^\s*Done\s*$/ });
    if (await done.count() === 0) {
      log('no "Done" button in the widget cell: the notebook is not saved');
      return;
    }
    await waitSvgSettled(1000, 15000); // the last update has rendered
    const tDone = Date.now();
    await done.first().click();
    try {
      await page.waitForFunction(i => {
        const c = Jupyter.notebook.get_cell(i);
        return !c.element[0].classList.contains('running') && Jupyter.notebook.kernel_busy !== true;
      }, widgetCell, { timeout: doneTimeout, polling: 100 });
    } catch (e) {
      throw new Error(`the widget cell did not finish within ${doneTimeout / 1000}s of clicking "Done"`);
    }
    const err = await page.evaluate(cellsState, widgetCell);
    if (err.error) throw new Error('error output after clicking "Done": ' + err.error);
    const outs = await page.evaluate(cellOutputs, widgetCell);
    const last = outs[outs.length - 1];
    if (!last || !last.image) throw new Error(`after "Done" the widget cell's last output is not a figure (outputs: ${JSON.stringify(outs)})`);
    log(`"Done": the cell ended after ${((Date.now() - tDone) / 1000).toFixed(2)}s with ${outs.length} output(s), the last a static copy of the figures`);
    await shoot('done');
    await page.evaluate(saveNotebook);
    const api = `http://127.0.0.1:${port}/api/contents/${nbPath.split('/').map(encodeURIComponent).join('/')}?type=notebook&content=1`;
    const res = await fetch(api, { headers: { Authorization: `token ${token}` } });
    if (!res.ok) throw new Error(`GET ${api.replace(token, '<token>')}: HTTP ${res.status}`);
    const saved = (await res.json()).content;
    const cell = (saved.cells || [])[widgetCell];
    const images = ((cell && cell.outputs) || []).filter(o => {
      const d = o.data || {};
      const html = [].concat(d['text/html'] || []).join('');
      return d['image/svg+xml'] || d['image/png'] || /<svg[\s>]/.test(html);
    }).length;
    if (!images) throw new Error('the saved notebook has no figure in the widget cell');
    fs.writeFileSync(outFile('saved.ipynb'), JSON.stringify(saved, null, 1) + '\n');
    log(`notebook saved; its widget cell has ${cell.outputs.length} output(s), ${images} with a figure: ${outFile('saved.ipynb')}`);
  };

  let exitCode = 1;
  try {
    log('open', url.replace(token, '<token>'));
    await page.goto(url, { waitUntil: 'load', timeout: 60000 });
    await page.waitForFunction(() => window.Jupyter && Jupyter.notebook && Jupyter.notebook._fully_loaded
      && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected(), null, { timeout: 120000 });
    widgetCell = await page.evaluate(findWidgetCell);
    if (widgetCell < 0) throw new Error('no cell tagged "interactive" (and none creating a Slider) in ' + nbPath);
    log(`kernel connected; running cells 0..${widgetCell} (cell ${widgetCell} is the widget cell)`);
    await page.evaluate(() => { if (window.IPython && IPython.OutputArea) IPython.OutputArea.auto_scroll_threshold = -1; });
    const tRun = Date.now();
    await page.evaluate(i => Jupyter.notebook.execute_cell_range(0, i + 1), widgetCell);

    let passed = false;
    for (let attempt = 1; attempt <= attempts && !passed; attempt++) {
      if (attempt > 1) {
        // GoNB's front end waits only 500 ms for the kernel to acknowledge "comm_open"; on a busy
        // machine it gives up and the widget never syncs. Interrupt, wait past GoNB's 1 s heartbeat
        // (so it re-installs its websocket JS), and run the widget cell again.
        log(`attempt ${attempt}: interrupting the kernel and re-running the widget cell`);
        await page.evaluate(() => Jupyter.notebook.kernel.interrupt());
        await page.waitForTimeout(2500);
        await page.evaluate(i => Jupyter.notebook.execute_cells([i]), widgetCell);
      }
      commFailed = false;
      const sl = await waitForSlider(attempt === 1 ? cellsTimeout : 120000,
        attempt === 1 ? `running cells 0..${widgetCell}` : 're-running the widget cell');
      if (!sl) {
        if (attempt === 1) throw new Error(`no slider in the widget cell's output after ${cellsTimeout / 1000}s`);
        log(`attempt ${attempt}: no slider in the widget cell's output`);
        continue;
      }
      if (attempt === 1) log(`slider visible after ${((Date.now() - tRun) / 1000).toFixed(1)}s`);
      if (!await waitForSvg(widgetTimeout)) {
        log(`attempt ${attempt}: no SVG in the widget cell's output` + (commFailed ? ' (GoNB comm failed)' : ` after ${widgetTimeout / 1000}s`));
        continue;
      }
      log(`slider ${sl.selector} (${sl.count} range input(s); label "${sl.label}"), value ${sl.value} in [${sl.min}, ${sl.max}]`);
      if (!sl.matched) throw new Error(`no λ3 slider (id, name or label mentioning lambda3) among ${sl.count} range input(s)`);
      await page.waitForTimeout(500); // let pending output updates land before taking the reference
      const before = await page.evaluate(firstSvg, widgetCell);
      fs.writeFileSync(outFile('before.svg'), before);
      await shoot('before');
      const tMove = Date.now();
      const { v0, v1 } = await moveSlider(sl);
      log(`slider moved ${v0} -> ${v1} (drag took ${((Date.now() - tMove) / 1000).toFixed(2)}s)`);
      if (v0 === v1) throw new Error('could not change the slider value');
      const changed = await waitSvgChange(before, changeTimeout);
      if (!changed) {
        const st = await page.evaluate(cellsState, widgetCell);
        if (st.error) throw new Error('error output after moving the slider: ' + st.error);
        log(`attempt ${attempt}: SVG did not change within ${changeTimeout / 1000}s`);
        continue;
      }
      log(`SVG changed ${((Date.now() - tMove) / 1000).toFixed(2)}s after the drag started`);
      await waitSvgSettled(1000, 15000); // the last update (the final slider value) has rendered
      const after = await page.evaluate(firstSvg, widgetCell);
      fs.writeFileSync(outFile('after.svg'), after);
      await shoot('after');
      // Latency of one isolated update (informational): set the slider back to its first value
      // (one input/change event pair, as a click would) and wait for the SVG to change again.
      const loc = page.locator(sl.selector);
      const tSet = Date.now();
      await loc.evaluate((el, v) => {
        el.value = v;
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      }, String(v0));
      if (await waitSvgChange(after, changeTimeout)) {
        log(`one update (slider set back to ${v0}): SVG changed in ${((Date.now() - tSet) / 1000).toFixed(2)}s`);
      } else {
        log(`WARNING: setting the slider back to ${v0} (one change event) did not change the SVG within ${changeTimeout / 1000}s: the widget may miss single changes`);
      }
      passed = true;
    }
    if (!passed) throw new Error(`the SVG did not change after moving the slider (${attempts} attempt(s))`);
    await finishAndSave();
    log('PASSED');
    exitCode = 0;
  } catch (e) {
    log('FAILED:', e.message);
    if (widgetCell >= 0) await shoot('failure').catch(() => {});
    await page.screenshot({ path: outFile('failure_page.png'), fullPage: true }).catch(() => {});
  } finally {
    // The widget cell keeps listening: interrupt it so the kernel shuts down cleanly.
    await page.evaluate(() => Jupyter.notebook.kernel.interrupt()).catch(() => {});
    await page.waitForTimeout(500);
    await context.close().catch(() => {});
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  log('exit', exitCode);
  process.exit(exitCode);
})().catch(e => { console.error(e); process.exit(1); });
