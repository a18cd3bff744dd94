// Hand-written SVG charts: a step line for trust over time and a bar histogram.
import { s, num, fmtTime } from './dom.js';

// Trust after each event, in event order (events often share a second, so x is the order).
export function trustChart(history, { createdAt, width = 520, height = 160 } = {}) {
  const points = [{ label: 'created', score: 0.5, time: createdAt }]
    .concat(history.map((e) => ({ label: e.event, score: e.score_after, time: e.created_at, delta: e.delta })));
  const pad = { l: 34, r: 12, t: 10, b: 24 };
  const w = width - pad.l - pad.r;
  const hgt = height - pad.t - pad.b;
  const x = (i) => pad.l + (points.length === 1 ? w / 2 : (i * w) / (points.length - 1));
  const y = (v) => pad.t + (1 - v) * hgt;
  const path = points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(p.score).toFixed(1)}`).join(' ');
  return s('svg', { class: 'chart trust-chart', viewBox: `0 0 ${width} ${height}`, width: '100%', style: { maxWidth: `${width * 1.4}px` }, role: 'img',
    'aria-label': `trust history: ${points.length - 1} events` },
    [0, 0.25, 0.5, 0.75, 1].map((v) => [
      s('line', { class: v === 0 ? 'axis' : 'grid', x1: pad.l, x2: width - pad.r, y1: y(v), y2: y(v) }),
      s('text', { x: pad.l - 6, y: y(v) + 4, 'text-anchor': 'end' }, v.toFixed(2)),
    ]),
    s('path', { class: 'line', d: path }),
    points.map((p, i) => s('circle', { class: 'dot', cx: x(i), cy: y(p.score), r: 4 },
      s('title', {}, `${p.label}${p.delta != null ? ` (${p.delta > 0 ? '+' : ''}${num(p.delta, 2)})` : ''} → ${num(p.score, 2)}\n${fmtTime(p.time)}`))),
    s('text', { x: pad.l, y: height - 6 }, 'created'),
    points.length > 1 ? s('text', { x: width - pad.r, y: height - 6, 'text-anchor': 'end' }, `${points.length - 1} events · now ${num(points.at(-1).score, 2)}`) : null,
  );
}

const msLabel = (v) => (v >= 1000 ? `${v / 1000} s` : `${v} ms`);
const shortLabel = (v) => (v >= 1000 ? `${v / 1000}s` : `${v}ms`);

export function histogramChart(bins, { width = 900, height = 200 } = {}) {
  const pad = { l: 36, r: 8, t: 16, b: 36 };
  const w = width - pad.l - pad.r;
  const hgt = height - pad.t - pad.b;
  const max = Math.max(1, ...bins.map((b) => b.count));
  const bw = w / bins.length;
  return s('svg', { class: 'chart latency-histogram', viewBox: `0 0 ${width} ${height}`, width: '100%', style: { maxHeight: '220px' }, role: 'img',
    'aria-label': 'latency histogram' },
    s('line', { class: 'axis', x1: pad.l, x2: width - pad.r, y1: pad.t + hgt, y2: pad.t + hgt }),
    s('text', { x: pad.l - 6, y: pad.t + 4, 'text-anchor': 'end' }, String(max)),
    s('text', { x: pad.l - 6, y: pad.t + hgt, 'text-anchor': 'end' }, '0'),
    bins.map((b, i) => {
      const bh = (b.count / max) * hgt;
      const label = b.to_ms == null ? `>${msLabel(b.from_ms)}` : `≤${msLabel(b.to_ms)}`;
      const bx = pad.l + i * bw;
      return s('g', { class: 'bin', dataset: { count: b.count } },
        s('rect', { class: `bar${b.from_ms >= 1000 ? ' slow' : ''}`, x: bx + 2, y: pad.t + hgt - bh, width: Math.max(1, bw - 4), height: bh },
          s('title', {}, `${label}: ${b.count} call${b.count === 1 ? '' : 's'}`)),
        b.count ? s('text', { x: bx + bw / 2, y: pad.t + hgt - bh - 3, 'text-anchor': 'middle' }, String(b.count)) : null,
        s('text', { x: bx + bw / 2, y: height - 20, 'text-anchor': 'middle' }, b.to_ms == null ? `>${shortLabel(b.from_ms)}` : `≤${shortLabel(b.to_ms)}`));
    }),
    s('text', { x: pad.l + w / 2, y: height - 1, 'text-anchor': 'middle' }, 'latency per call'),
  );
}
