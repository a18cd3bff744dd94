import { api } from '../api.js';
import { h, table, fmtTime, clip, trustBar, num, isUuid } from '../dom.js';
import { trustChart } from '../charts.js';
import { EDGE_COLORS } from '../graphview.js';

// Memory ids inside a note (e.g. "contradicted by <id>") become links.
function linkIds(text) {
  return text.split(/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/i)
    .map((part, i) => (i % 2 ? h('a', { href: `#/memory/${part}` }, part.slice(0, 8) + '…') : part));
}

// How a decision reads from this memory's side (relation, direction: by the other / of this one).
const DECISION_WORDS = {
  'SUPERSEDES by': 'hidden by',
  'SUPERSEDES of': 'hid',
  'CONTRADICTS by': 'contradicted by',
  'CONTRADICTS of': 'contradicts',
  'RELATED_TO by': 'probably updated by',
  'RELATED_TO of': 'probably updates',
};

export async function render({ args }) {
  const id = args[0];
  if (!id) return h('div', { class: 'notice' }, 'No memory chosen: pick one on the Memories page.');
  if (!isUuid(id)) return h('div', { class: 'notice error' }, `“${id}” is not a memory id (a UUID).`);
  const [detail, neighbours] = await Promise.all([
    api(`/memory/${encodeURIComponent(id)}`),
    api(`/memory/related/${encodeURIComponent(id)}`, { params: { depth: 1 } }).catch(() => null),
  ]);
  const m = detail.memory;
  const others = new Map((neighbours?.nodes || []).map((n) => [n.memory.id, n.memory]));
  const otherLink = (oid) => {
    const o = others.get(oid);
    return h('a', { href: `#/memory/${oid}` }, o ? clip(o.content, 110) : oid);
  };
  const rels = detail.relationships.map((r) => ({ ...r, outgoing: r.source_id === m.id }));
  // The user's word (issue 28): only here, the CLI and /memory-confirm record user events.
  const status = h('span', { class: 'muted small', id: 'verdict-status' });
  const verdict = (what) => h('button', { type: 'button', id: `memory-${what}`, onclick: async () => {
    try {
      const r = await api(`/memory/${encodeURIComponent(m.id)}/${what}`, { method: 'POST', body: {} });
      status.textContent = `${r.event.event}: trust now ${num(r.memory.trust_score, 2)}`;
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    } catch (e) { status.textContent = e.message; }
  } }, what === 'confirm' ? 'Confirm (it is right)' : 'Reject (it is wrong)');
  const decisions = detail.decisions || [];
  const hiddenBy = decisions.filter((d) => d.relation === 'SUPERSEDES' && d.direction === 'by');
  return h('div', {},
    h('h1', {}, 'Memory ', h('span', { class: 'muted small' }, m.id)),
    h('div', { class: 'cols' },
      h('section', { class: 'panel', id: 'memory-detail' },
        m.superseded_by ? h('div', { class: 'notice', id: 'hidden-notice' }, 'Superseded by ', otherLink(m.superseded_by), ': left out of queries and lists.',
          hiddenBy.map((d) => h('div', { class: 'small' }, `${d.how}${d.score != null ? ` (${num(d.score, 2)})` : ''}: ${d.reason || 'no reason recorded'}`)),
          h('div', { class: 'small' }, 'Undo: ', h('code', {}, `neuralgentics memory restore ${m.id}`))) : null,
        m.quarantined ? h('div', { class: 'notice', id: 'memory-unconfirmed' }, `Unconfirmed: an agent wrote it${m.origin_project ? ` in project ${m.origin_project}` : ''}; other projects do not see it until you confirm it.`) : null,
        h('pre', { id: 'memory-content' }, m.content),
        h('p', {}, verdict('confirm'), ' ', verdict('reject'), ' ', status),
        h('dl', { class: 'kv', style: { marginTop: '12px' } },
          h('dt', {}, 'trust'), h('dd', {}, trustBar(m.trust_score)),
          h('dt', {}, 'project'), h('dd', {}, m.project || '—'),
          h('dt', {}, 'written by'), h('dd', {}, `${m.origin || 'user'}${m.origin_project ? ` (project ${m.origin_project})` : ''}`),
          h('dt', {}, 'source type'), h('dd', {}, m.source_type || '—'),
          h('dt', {}, 'tags'), h('dd', {}, m.tags.length ? m.tags.map((t) => h('span', { class: 'tag' }, t)) : '—'),
          h('dt', {}, 'created'), h('dd', {}, fmtTime(m.created_at)),
          h('dt', {}, 'updated'), h('dd', {}, fmtTime(m.updated_at)),
          h('dt', {}, 'metadata'), h('dd', {}, Object.keys(m.metadata).length ? h('pre', {}, JSON.stringify(m.metadata, null, 2)) : '—'),
        ),
        h('p', {}, h('a', { href: `#/graph/${m.id}?depth=2` }, 'Show in the graph →'))),
      h('section', { class: 'panel', id: 'trust-history' },
        h('h2', {}, 'Trust history'),
        trustChart(detail.trust_history, { createdAt: m.created_at }),
        table([
          { label: 'when', cls: 'nowrap', render: (e) => fmtTime(e.created_at) },
          { label: 'event', render: (e) => e.event },
          { label: 'Δ', num: true, render: (e) => `${e.delta > 0 ? '+' : ''}${num(e.delta, 2)}` },
          { label: 'after', num: true, render: (e) => num(e.score_after, 2) },
          { label: 'by', render: (e) => `${e.origin || 'user'}${e.actor ? ` ${e.actor}` : ''}` },
          { label: 'note', render: (e) => linkIds(e.note || '') },
        ], [...detail.trust_history].reverse(), { empty: 'No trust events yet: trust is the default 0.50.' }))),
    h('section', { class: 'panel', id: 'decisions', style: { marginTop: '16px' } },
      h('h2', {}, `Decisions (${decisions.length})`),
      table([
        { label: 'when', cls: 'nowrap', render: (d) => fmtTime(d.at) },
        { label: 'what', render: (d) => DECISION_WORDS[`${d.relation} ${d.direction}`] || d.relation },
        { label: 'other memory', cls: 'content', render: (d) => h('a', { href: `#/memory/${d.other_id}` }, d.other_content != null ? clip(d.other_content, 110) : `${d.other_id} (deleted)`) },
        { label: 'how', render: (d) => `${d.how}${d.score != null ? ` ${num(d.score, 2)}` : ''}` },
        { label: 'why', render: (d) => d.reason || '—' },
        { label: 'undo', render: (d) => (d.undo ? h('code', {}, d.undo) : '—') },
      ], decisions, { empty: 'No decision hid, contradicted or linked this memory.' })),
    h('section', { class: 'panel', id: 'relationships', style: { marginTop: '16px' } },
      h('h2', {}, `Relationships (${rels.length})`),
      table([
        { label: 'type', render: (r) => h('span', { class: 'badge', style: { background: EDGE_COLORS[r.relationship_type] || '#868e96', color: '#fff' } }, r.relationship_type) },
        { label: 'direction', render: (r) => (r.outgoing ? 'this → other' : 'other → this') },
        { label: 'other memory', cls: 'content', render: (r) => otherLink(r.outgoing ? r.target_id : r.source_id) },
        { label: 'confidence', num: true, render: (r) => num(r.confidence, 2) },
        { label: 'since', cls: 'nowrap', render: (r) => fmtTime(r.created_at) },
      ], rels, { empty: 'Not linked to any other memory.' })),
  );
}
