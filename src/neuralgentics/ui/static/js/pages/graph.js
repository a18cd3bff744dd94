import { api } from '../api.js';
import { h, clip, clear, table, trustBar, fmtTime, ago, isUuid } from '../dom.js';
import { graphView, EDGE_COLORS } from '../graphview.js';

const TYPES = Object.keys(EDGE_COLORS);

async function picker(go, q) {
  const input = h('input', { type: 'search', class: 'wide', value: q, placeholder: 'find the memory to start from', 'aria-label': 'find a memory' });
  const list = q
    ? (await api('/memory/query', { method: 'POST', body: { query: q, top_k: 20, include_superseded: true } })).hits.map((x) => x.memory)
    : (await api('/memory', { params: { limit: 20, include_superseded: 'true' } })).items;
  return h('div', {},
    h('h1', {}, 'Graph'),
    h('section', { class: 'panel' },
      h('form', { class: 'filters', onsubmit: (ev) => { ev.preventDefault(); go('graph', [], { q: input.value.trim() }); } }, input, h('button', { type: 'submit' }, 'Find')),
      h('p', { class: 'muted small' }, 'Choose a memory: the graph shows every memory linked to it, up to the depth you pick.'),
      table([
        { label: 'memory', cls: 'content', render: (m) => h('a', { href: `#/graph/${m.id}?depth=2` }, clip(m.content, 160)) },
        { label: 'trust', render: (m) => trustBar(m.trust_score) },
        { label: 'added', render: (m) => h('span', { class: 'nowrap', title: fmtTime(m.created_at) }, ago(m.created_at)) },
      ], list, { empty: 'No memories yet.' })));
}

export async function render({ args, query, go }) {
  const id = args[0];
  if (!id) return picker(go, query.get('q') || '');
  if (!isUuid(id)) return h('div', { class: 'notice error' }, `“${id}” is not a memory id (a UUID).`);
  const depth = Math.min(5, Math.max(1, Number(query.get('depth') || 2)));
  const types = (query.get('types') || '').split(',').filter((t) => TYPES.includes(t));
  const [res, root] = await Promise.all([
    api(`/memory/related/${encodeURIComponent(id)}`, { params: { depth, types: types.length ? types.join(',') : null } }),
    api(`/memory/${encodeURIComponent(id)}`),
  ]);
  // The walk lists the memories it reached; the one it started from comes first, at distance 0.
  const reached = res.nodes.some((n) => n.memory.id === id) ? res.nodes : [{ memory: root.memory, distance: 0, path: [] }, ...res.nodes];
  const nodes = reached.map((n) => ({
    id: n.memory.id, label: n.memory.content.replace(/\s+/g, ' '), distance: n.distance,
    superseded: !!n.memory.superseded_by, trust: n.memory.trust_score, memory: n.memory,
  }));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const side = h('aside', { class: 'panel', id: 'graph-side' });
  const showNode = (nid) => {
    const n = byId.get(nid);
    if (!n) return;
    const degree = res.edges.filter((e) => e.source_id === nid || e.target_id === nid).length;
    clear(side,
      h('h2', {}, n.id === id ? 'Start memory' : `Distance ${n.distance}`),
      n.superseded ? h('div', { class: 'notice' }, 'superseded') : null,
      h('pre', {}, n.memory.content),
      h('dl', { class: 'kv', style: { marginTop: '10px' } },
        h('dt', {}, 'trust'), h('dd', {}, trustBar(n.trust)),
        h('dt', {}, 'links here'), h('dd', {}, String(degree)),
        h('dt', {}, 'project'), h('dd', {}, n.memory.project || '—')),
      h('p', {}, h('a', { href: `#/memory/${n.id}` }, 'Open memory'), n.id !== id ? [' · ', h('a', { href: `#/graph/${n.id}?depth=${depth}${types.length ? `&types=${types.join(',')}` : ''}` }, 'Centre the graph here')] : null));
  };
  const view = graphView({ nodes, edges: res.edges, rootId: id, selected: id, onSelect: showNode });
  showNode(id);

  const depthSel = h('select', { name: 'depth', 'aria-label': 'depth', onchange: () => go('graph', [id], { depth: depthSel.value, types: types.join(',') }) },
    [1, 2, 3, 4, 5].map((d) => h('option', { value: d, selected: d === depth ? true : null }, `depth ${d}`)));
  const typeBoxes = TYPES.map((t) => {
    const box = h('input', { type: 'checkbox', value: t, checked: !types.length || types.includes(t) });
    box.addEventListener('change', () => {
      const on = [...document.querySelectorAll('.type-filter input:checked')].map((b) => b.value);
      go('graph', [id], { depth, types: on.length === TYPES.length ? '' : on.join(',') });
    });
    return h('label', { class: 'type-filter' }, box, h('i', { style: { background: EDGE_COLORS[t] } }), t);
  });
  return h('div', {},
    h('h1', {}, 'Graph ', h('span', { class: 'muted small' }, `${nodes.length} memories · ${res.edges.length} relationships · around `, h('a', { href: `#/memory/${id}` }, clip(byId.get(id)?.label || id, 60)))),
    h('div', { class: 'toolbar' }, h('label', { class: 'field' }, 'BFS depth', depthSel),
      h('div', { class: 'legend' }, typeBoxes,
        h('span', {}, h('i', { class: 'node', style: { background: '#dee2e6', border: '1px dashed #adb5bd' } }), 'superseded'),
        h('a', { href: '#/graph' }, 'choose another memory'))),
    h('div', { class: 'split' }, view.element, side),
    res.edges.length ? null : h('p', { class: 'muted' }, 'This memory has no relationships of these types yet.'));
}
