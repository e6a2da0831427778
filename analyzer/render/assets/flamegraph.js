// hangscope flamegraph: click to zoom, search by regular expression, tooltips.
// Embedded into every flamegraph SVG (and once into the HTML report) at build time.
// Each frame is <g class="f" data-o data-s data-d data-g [data-t] [data-m]> holding
// <title>, <rect> and <text>; data-o is the weight to the frame's left, data-s its
// weight, data-d its depth, data-g its wait group, data-t its weight from timed inputs,
// data-c (differential flamegraphs) its change against the base, in words.
'use strict';

function hsFlame(svg) {
  if (svg.hsFlame) return svg.hsFlame;
  const total = Number(svg.dataset.total) || 0;
  const rounds = Number(svg.dataset.rounds) || 0;
  const unit = svg.dataset.unit || 'samples';
  const tip = svg.querySelector('.hs-tip');
  const tipRect = tip.querySelector('rect');
  const tipText = tip.querySelector('text');
  const details = svg.querySelector('.hs-details');
  const matchedText = svg.querySelector('.hs-matched');
  const standalone = svg === document.documentElement;

  const groupNames = new Map();
  svg.querySelectorAll('.hs-groups text').forEach((t) => groupNames.set(t.dataset.g, t.textContent));

  // The frames, read once. The <title> serves viewers without scripts; here the
  // tooltip replaces it, so it is taken out.
  const frames = Array.from(svg.querySelectorAll('g.f'), (g) => {
    const title = g.querySelector('title');
    const name = title ? title.textContent.split('\n')[0] : '';
    if (title) title.remove();
    const rect = g.querySelector('rect');
    const f = {
      g, rect, text: g.querySelector('text'), name,
      o: Number(g.dataset.o), s: Number(g.dataset.s), d: Number(g.dataset.d),
      t: g.dataset.t === undefined ? null : Number(g.dataset.t),
      group: groupNames.get(g.dataset.g) || '', module: g.dataset.m || '', change: g.dataset.c || '',
      user: g.classList.contains('u'), cpu: g.dataset.k === 'cpu', x0: rect.getAttribute('x'), w0: rect.getAttribute('width'),
    };
    g.hsFrame = f;
    return f;
  });

  // One character width, measured once: labels are fitted by counting characters.
  let charWidth = Number(svg.dataset.charw) || 7.2;
  if (frames.length) {
    const probe = frames[0].text.cloneNode(false);
    probe.textContent = 'MMMMMMMMMMMMMMMMMMMM';
    frames[0].g.appendChild(probe);
    const w = probe.getComputedTextLength();
    if (w > 0) charWidth = w / 20;
    probe.remove();
  }

  let zoomed = null;
  let matches = null;

  const pct = (x) => (100 * x).toFixed(2) + '%';
  const fmt = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(2));
  const width = () => svg.getBoundingClientRect().width || 1200;

  function fitLabel(f, px) {
    const n = Math.floor((px - 6) / charWidth);
    if (n < 3) return '';
    return f.name.length <= n ? f.name : f.name.slice(0, n - 2) + '..';
  }

  function visible(f) {
    return !f.g.classList.contains('hide');
  }

  // Places every frame for the current zoom and refits the labels.
  function layout() {
    const W = width();
    for (const f of frames) {
      let x = 0;
      let w = 1;
      f.g.classList.remove('anc', 'hide');
      if (zoomed) {
        const z = zoomed;
        if (f.d < z.d && f.o <= z.o && f.o + f.s >= z.o + z.s) {
          f.g.classList.add('anc');
        } else if (f.d >= z.d && f.o >= z.o && f.o + f.s <= z.o + z.s) {
          x = (f.o - z.o) / z.s;
          w = f.s / z.s;
        } else {
          f.g.classList.add('hide');
          continue;
        }
        f.rect.setAttribute('x', (100 * x).toFixed(4) + '%');
        f.rect.setAttribute('width', (100 * w).toFixed(4) + '%');
        f.text.setAttribute('x', (100 * x).toFixed(4) + '%');
      } else {
        f.rect.setAttribute('x', f.x0);
        f.rect.setAttribute('width', f.w0);
        f.text.setAttribute('x', f.x0);
        w = f.s / total;
      }
      f.text.textContent = fitLabel(f, w * W);
    }
    svg.classList.toggle('zoomed', zoomed !== null);
    showMatched();
  }

  function zoom(f) {
    zoomed = f.d === 0 ? null : f;
    layout();
  }

  function resetZoom() {
    zoomed = null;
    layout();
  }

  // The share of the matched frames: the union of their ranges, so that a match
  // inside another match is not counted twice.
  function matchedShare(lo, hi) {
    if (!matches || !matches.length) return 0;
    const ranges = matches
      .map((f) => [Math.max(f.o, lo), Math.min(f.o + f.s, hi)])
      .filter((r) => r[1] > r[0])
      .sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    let sum = 0;
    let end = -Infinity;
    for (const [a, b] of ranges) {
      if (b <= end) continue;
      sum += b - Math.max(a, end);
      end = b;
    }
    return sum / (hi - lo);
  }

  function showMatched() {
    if (!matches) {
      matchedText.textContent = ' ';
      return;
    }
    let s = 'Matched: ' + pct(matchedShare(0, total));
    if (zoomed) s += ' (' + pct(matchedShare(zoomed.o, zoomed.o + zoomed.s)) + ' of zoomed)';
    matchedText.textContent = s;
  }

  function search(pattern) {
    clearSearch();
    if (pattern === null || pattern === undefined || pattern === '') return;
    let re;
    try {
      re = new RegExp(pattern);
    } catch (e) {
      matchedText.textContent = 'Bad regular expression: ' + e.message;
      return;
    }
    matches = frames.filter((f) => re.test(f.name));
    for (const f of matches) f.g.classList.add('m');
    svg.classList.add('searching');
    showMatched();
  }

  function clearSearch() {
    if (matches) for (const f of matches) f.g.classList.remove('m');
    matches = null;
    svg.classList.remove('searching');
    showMatched();
  }

  function askSearch() {
    search(window.prompt('Search frames by regular expression', ''));
  }

  function tooltipLines(f) {
    const lines = [f.name + (f.module ? ' [' + f.module + ']' : '') + (f.user ? '  (user)' : '')];
    let share = f.s + ' ' + unit + ', ' + pct(f.s / total) + ' of all';
    if (zoomed && f.d >= zoomed.d) share += ', ' + pct(f.s / zoomed.s) + ' of zoomed';
    lines.push(share);
    if (f.cpu) lines.push('on CPU (running, not blocked)');
    if (rounds > 0 && f.t !== null) lines.push('average blocked threads: ' + fmt(f.t / rounds));
    if (f.group) lines.push('wait group: ' + f.group);
    if (f.change) lines.push(f.change);
    return lines;
  }

  function showTip(f, ev) {
    const lines = tooltipLines(f);
    details.textContent = lines.slice(0, 2).join('  ');
    while (tipText.firstChild) tipText.firstChild.remove();
    lines.forEach((line, i) => {
      const span = document.createElementNS('http://www.w3.org/2000/svg', 'tspan');
      span.setAttribute('x', '6');
      span.setAttribute('dy', i ? '15' : '14');
      span.textContent = line;
      tipText.appendChild(span);
    });
    const w = Math.max(...lines.map((l) => l.length)) * charWidth + 12;
    const h = lines.length * 15 + 8;
    tipRect.setAttribute('width', String(w));
    tipRect.setAttribute('height', String(h));
    const pt = svg.createSVGPoint();
    pt.x = ev.clientX;
    pt.y = ev.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    const box = svg.getBoundingClientRect();
    let x = p.x + 12;
    let y = p.y + 14;
    if (x + w > box.width) x = Math.max(0, p.x - w - 8);
    if (y + h > box.height) y = Math.max(0, p.y - h - 8);
    tip.setAttribute('transform', 'translate(' + x.toFixed(1) + ',' + y.toFixed(1) + ')');
    tip.setAttribute('visibility', 'visible');
  }

  function hideTip() {
    tip.setAttribute('visibility', 'hidden');
    details.textContent = ' ';
  }

  const frameOf = (ev) => {
    const g = ev.target.closest && ev.target.closest('g.f');
    return g && g.hsFrame;
  };
  svg.addEventListener('click', (ev) => {
    const f = frameOf(ev);
    if (f && visible(f)) zoom(f);
  });
  svg.addEventListener('mousemove', (ev) => {
    const f = frameOf(ev);
    if (f && visible(f)) showTip(f, ev);
    else hideTip();
  });
  svg.addEventListener('mouseleave', hideTip);
  svg.querySelector('.hs-reset').addEventListener('click', resetZoom);
  svg.querySelector('.hs-search').addEventListener('click', askSearch);

  // Ctrl-F searches the flamegraph: always in a standalone SVG; in a page, only while
  // the pointer is over the flamegraph, so that the page's own find still works.
  window.addEventListener('keydown', (ev) => {
    const find = (ev.ctrlKey || ev.metaKey) && (ev.key === 'f' || ev.key === 'F');
    if ((find || ev.key === 'F3') && (standalone || svg.matches(':hover'))) {
      ev.preventDefault();
      askSearch();
    } else if (ev.key === 'Escape') {
      clearSearch();
    }
  });
  let pending = false;
  window.addEventListener('resize', () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      layout();
    });
  });

  layout();
  svg.hsFlame = { zoom, resetZoom, search, clearSearch, frames, matchedShare, charWidth };
  return svg.hsFlame;
}

(function start() {
  const root = document.documentElement;
  if (root && root.namespaceURI === 'http://www.w3.org/2000/svg') {
    // A standalone SVG: the script runs while the document is parsed.
    window.addEventListener('load', () => hsFlame(root));
    return;
  }
  const all = () => document.querySelectorAll('svg.hs-flame').forEach(hsFlame);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', all);
  else all();
})();
