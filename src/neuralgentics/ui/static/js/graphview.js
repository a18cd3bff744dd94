// The memory graph as SVG: a small force layout (computed once, deterministic) and
// pan/zoom with the pointer and the wheel. No library: a few hundred nodes at most (the
// API caps a walk at 500), which a plain O(n²) layout handles in well under a second.
import { s, h, clip } from './dom.js';

export const EDGE_COLORS = {
  SUPERSEDES: '#e8590c',
  RELATED_TO: '#1c7ed6',
  CONTRADICTS: '#e03131',
  DERIVED_FROM: '#2f9e44',
};
const RING_COLORS = ['#364fc7', '#5c7cfa', '#91a7ff', '#bac8ff', '#dbe4ff', '#edf2ff'];

function layout(nodes, edges, rootId) {
  // Start on rings by distance so the result is the same every time and converges fast.
  const byDist = new Map();
  for (const n of nodes) {
    if (!byDist.has(n.distance)) byDist.set(n.distance, []);
    byDist.get(n.distance).push(n);
  }
  for (const [d, ring] of byDist) {
    ring.forEach((n, i) => {
      const a = (2 * Math.PI * i) / ring.length + d * 0.7;
      n.x = d === 0 ? 0 : Math.cos(a) * 200 * d;
      n.y = d === 0 ? 0 : Math.sin(a) * 200 * d;
    });
  }
  const index = new Map(nodes.map((n) => [n.id, n]));
  const links = edges.map((e) => [index.get(e.source_id), index.get(e.target_id)]).filter(([a, b]) => a && b);
  const iterations = nodes.length > 250 ? 80 : nodes.length > 80 ? 160 : 300;
  for (let it = 0; it < iterations; it++) {
    const cool = 1 - it / iterations;
    for (const n of nodes) { n.vx = 0; n.vy = 0; }
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) {
        const a = nodes[i], b = nodes[j];
        let dx = a.x - b.x, dy = a.y - b.y;
        let d2 = dx * dx + dy * dy;
        if (d2 < 0.01) { dx = (i - j) * 0.1; dy = 0.1; d2 = dx * dx + dy * dy; }
        // labels run to the right of each node: push harder sideways than up and down
        const f = 22000 / d2;
        const d = Math.sqrt(d2);
        a.vx += (dx / d) * f; a.vy += (dy / d) * f;
        b.vx -= (dx / d) * f; b.vy -= (dy / d) * f;
        // two labels on one line overlap: move them apart vertically
        if (Math.abs(dy) < 22 && Math.abs(dx) < 280) {
          const push = (22 - Math.abs(dy)) * 2 * (dy >= 0 ? 1 : -1);
          a.vy += push; b.vy -= push;
        }
      }
    }
    for (const [a, b] of links) {
      const dx = b.x - a.x, dy = b.y - a.y;
      const d = Math.max(1, Math.sqrt(dx * dx + dy * dy));
      const f = (d - 190) * 0.06;
      a.vx += (dx / d) * f; a.vy += (dy / d) * f;
      b.vx -= (dx / d) * f; b.vy -= (dy / d) * f;
    }
    for (const n of nodes) {
      if (n.id === rootId) continue; // the memory the walk started from stays in the middle
      n.vx -= n.x * 0.01; n.vy -= n.y * 0.01;
      const v = Math.sqrt(n.vx * n.vx + n.vy * n.vy);
      const step = Math.min(v, 30 * cool + 1);
      if (v > 0) { n.x += (n.vx / v) * step; n.y += (n.vy / v) * step; }
    }
  }
}

// nodes: [{id, label, distance, superseded, trust}], edges: RelationshipOut[]
export function graphView({ nodes, edges, rootId, selected, onSelect }) {
  layout(nodes, edges, rootId);
  const R = 11;
  const view = { x: 0, y: 0, k: 1 };
  const stage = s('g', { class: 'stage' });
  const svg = s('svg', { class: 'graph', role: 'img', 'aria-label': `memory graph: ${nodes.length} memories, ${edges.length} relationships` },
    s('defs', {}, Object.entries(EDGE_COLORS).map(([type, color]) =>
      s('marker', { id: `arrow-${type}`, viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
        s('path', { d: 'M0,0 L10,5 L0,10 z', fill: color })))),
    stage);
  const index = new Map(nodes.map((n) => [n.id, n]));
  const edgeLayer = s('g', { class: 'edges' });
  const nodeLayer = s('g', { class: 'nodes' });
  stage.append(edgeLayer, nodeLayer);
  const lines = []; // [line element, source node, target node]
  // stop at the target circle's rim so the arrow head shows
  const place = (line, a, b) => {
    const dx = b.x - a.x, dy = b.y - a.y;
    const d = Math.max(1, Math.sqrt(dx * dx + dy * dy));
    const rim = (b.id === rootId ? R + 3 : R) + 3;
    line.setAttribute('x1', a.x); line.setAttribute('y1', a.y);
    line.setAttribute('x2', b.x - (dx / d) * rim); line.setAttribute('y2', b.y - (dy / d) * rim);
  };
  for (const e of edges) {
    const a = index.get(e.source_id), b = index.get(e.target_id);
    if (!a || !b) continue;
    const line = s('line', {
      class: 'edge', stroke: EDGE_COLORS[e.relationship_type] || '#868e96',
      'stroke-opacity': 0.35 + 0.65 * (e.confidence ?? 1), 'marker-end': `url(#arrow-${e.relationship_type})`,
      dataset: { edgeId: e.id, type: e.relationship_type, source: e.source_id, target: e.target_id },
    }, s('title', {}, `${e.relationship_type} (confidence ${Number(e.confidence ?? 1).toFixed(2)})`));
    place(line, a, b);
    lines.push([line, a, b]);
    edgeLayer.append(line);
  }
  const nodeEls = new Map();
  for (const n of nodes) {
    const cls = ['node', n.id === rootId ? 'root' : '', n.superseded ? 'superseded' : '', n.id === selected ? 'selected' : ''].join(' ').trim();
    const g = s('g', { class: cls, transform: `translate(${n.x},${n.y})`, tabindex: 0, dataset: { id: n.id, distance: n.distance } },
      s('circle', { r: n.id === rootId ? R + 3 : R, fill: RING_COLORS[Math.min(n.distance, RING_COLORS.length - 1)] }),
      s('text', { x: R + 5, y: 4 }, clip(n.label, 42)),
      s('title', {}, `${n.superseded ? '[superseded] ' : ''}${n.label}\ntrust ${Number(n.trust).toFixed(2)} · distance ${n.distance}`));
    // drag a node to move it (its edges follow); a click without a move selects it
    g.addEventListener('pointerdown', (ev) => {
      ev.stopPropagation();
      const start = { x: ev.clientX, y: ev.clientY, nx: n.x, ny: n.y, moved: false };
      g.setPointerCapture(ev.pointerId);
      const move = (mv) => {
        const dx = (mv.clientX - start.x) / view.k, dy = (mv.clientY - start.y) / view.k;
        if (Math.abs(dx) + Math.abs(dy) > 3) start.moved = true;
        n.x = start.nx + dx; n.y = start.ny + dy;
        g.setAttribute('transform', `translate(${n.x},${n.y})`);
        for (const [line, a, b] of lines) if (a === n || b === n) place(line, a, b);
      };
      const up = () => {
        g.removeEventListener('pointermove', move);
        g.removeEventListener('pointerup', up);
        if (!start.moved) select(n.id);
      };
      g.addEventListener('pointermove', move);
      g.addEventListener('pointerup', up);
    });
    g.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') select(n.id); });
    nodeEls.set(n.id, g);
    nodeLayer.append(g);
  }
  function select(id) {
    for (const [nid, el] of nodeEls) el.classList.toggle('selected', nid === id);
    onSelect?.(id);
  }
  const apply = () => stage.setAttribute('transform', `translate(${view.x},${view.y}) scale(${view.k})`);

  function fit() {
    const box = svg.getBoundingClientRect();
    if (!box.width || !nodes.length) return;
    const xs = nodes.map((n) => n.x), ys = nodes.map((n) => n.y);
    const minX = Math.min(...xs) - 40, maxX = Math.max(...xs) + 220, minY = Math.min(...ys) - 40, maxY = Math.max(...ys) + 40;
    view.k = Math.min(1.2, Math.max(0.15, Math.min(box.width / (maxX - minX), box.height / (maxY - minY))));
    view.x = (box.width - (maxX + minX) * view.k) / 2;
    view.y = (box.height - (maxY + minY) * view.k) / 2;
    apply();
  }
  function zoomAt(factor, cx, cy) {
    const k = Math.min(4, Math.max(0.1, view.k * factor));
    view.x = cx - ((cx - view.x) * k) / view.k;
    view.y = cy - ((cy - view.y) * k) / view.k;
    view.k = k;
    apply();
  }
  let drag = null;
  svg.addEventListener('pointerdown', (ev) => {
    drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y };
    svg.setPointerCapture(ev.pointerId);
    svg.classList.add('dragging');
  });
  svg.addEventListener('pointermove', (ev) => {
    if (!drag) return;
    view.x = drag.vx + ev.clientX - drag.x;
    view.y = drag.vy + ev.clientY - drag.y;
    apply();
  });
  const stop = () => { drag = null; svg.classList.remove('dragging'); };
  svg.addEventListener('pointerup', stop);
  svg.addEventListener('pointercancel', stop);
  svg.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const box = svg.getBoundingClientRect();
    zoomAt(ev.deltaY < 0 ? 1.15 : 1 / 1.15, ev.clientX - box.left, ev.clientY - box.top);
  }, { passive: false });

  const centre = () => { const b = svg.getBoundingClientRect(); return [b.width / 2, b.height / 2]; };
  const wrap = h('div', { class: 'graphwrap' }, svg,
    h('div', { class: 'zoom' },
      h('button', { class: 'secondary', type: 'button', title: 'zoom in', onclick: () => zoomAt(1.25, ...centre()) }, '+'),
      h('button', { class: 'secondary', type: 'button', title: 'zoom out', onclick: () => zoomAt(0.8, ...centre()) }, '−'),
      h('button', { class: 'secondary', type: 'button', title: 'fit the graph to the view', onclick: fit }, 'fit')),
    h('div', { class: 'hint' }, 'drag the background to pan · drag a memory to move it · wheel to zoom · click a memory'));
  // a transform from the start (the page may be read before the first frame), then fit once
  // the element is in the page and has a size
  apply();
  requestAnimationFrame(fit);
  return { element: wrap, fit, view };
}
