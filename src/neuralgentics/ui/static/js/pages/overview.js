import { api, all } from '../api.js';
import { h, badge, table, fmtTime, ago, clip, trustBar, errorBox, num } from '../dom.js';

function stat(label, value) {
  return h('div', { class: 'stat', dataset: { stat: label } }, h('b', {}, value ?? '—'), h('span', {}, label));
}

export async function render() {
  const info = await api('/ui/api/info');
  const [health, projects, broker, recent, audit] = await all([
    api('/health'),
    // asked only where the indexer is mounted, so a build without it logs no failed request
    info.indexer ? api('/project/list') : Promise.reject(Object.assign(new Error('not mounted in this build'), { status: 404 })),
    api('/ui/api/broker-status'),
    api('/memory', { params: { limit: 8 } }),
    api('/ui/api/audit', { params: { limit: 8 } }),
  ]);
  if (!health.ok) throw health.error;
  const hv = health.value;
  const counts = hv.counts || {};
  const b = broker.ok ? broker.value : { reachable: false, error: broker.error.message, servers: [] };
  const brokerUp = b.reachable && !b.error;
  const states = brokerUp ? b.health.servers || {} : {};
  const servers = b.error ? { ok: false, error: { message: `Broker ${b.error}` } } : { ok: true, value: b.servers };

  const services = h('section', { class: 'panel', id: 'services' },
    h('h2', {}, 'Services'),
    h('dl', { class: 'kv' },
      h('dt', {}, 'memini-core'), h('dd', {}, badge(hv.status === 'ok' ? 'ok' : 'down'), ` version ${hv.version}`),
      h('dt', {}, 'store'), h('dd', { id: 'store-kind' }, hv.store),
      h('dt', {}, 'embedding model'), h('dd', {}, `${hv.embedding_model} (${hv.embedding_dim} dimensions)`),
      h('dt', {}, 'project indexer'), h('dd', {}, projects.ok ? badge('ok') : h('span', { class: 'muted' }, projects.error.status === 404 || projects.error.status === 501 ? 'not mounted in this build' : projects.error.message)),
      h('dt', {}, 'orchestrator'), h('dd', {}, info.orchestrator ? badge('ok') : h('span', { class: 'muted' }, 'not mounted in this build')),
      h('dt', {}, 'broker'), h('dd', { id: 'broker-state' }, brokerUp ? [badge('ok'), ` ${b.url}`] : [badge('down'), ' ', h('span', { class: 'muted small' }, b.error)]),
    ));

  const countsPanel = h('section', { class: 'panel', id: 'counts' },
    h('h2', {}, 'Counts'),
    h('div', { class: 'stats' },
      stat('memories', counts.memories),
      stat('relationships', counts.relationships),
      stat('trust events', counts.trust_events),
      stat('projects', projects.ok ? projects.value.length : '—'),
      stat('chunks', counts.project_chunks),
      stat('broker servers', servers.ok ? servers.value.length : '—'),
    ));

  const serverPanel = h('section', { class: 'panel', id: 'broker-servers' },
    h('h2', {}, 'Broker servers ', brokerUp ? h('span', { class: 'muted small' },
      Object.entries(states).map(([k, v]) => `${v} ${k}`).join(' · ')) : null),
    !servers.ok ? h('div', { class: 'notice' }, servers.error.message) : table([
      { label: 'server', render: (s) => h('b', {}, s.name) },
      { label: 'state', render: (s) => badge(s.state) },
      { label: 'transport', render: (s) => s.transport },
      { label: 'tools', num: true, render: (s) => s.tools ?? '—' },
      { label: 'restarts', num: true, render: (s) => s.restarts },
      { label: 'last error', cls: 'clip', render: (s) => s.last_error ? h('span', { class: 'error', title: s.last_error }, s.last_error) : '—' },
    ], servers.value, { empty: 'No servers configured (neuralgentics broker add …).' }));

  const memPanel = h('section', { class: 'panel', id: 'recent-memories' },
    h('h2', {}, 'Recent memories'),
    !recent.ok ? errorBox(recent.error) : table([
      { label: 'memory', cls: 'content', render: (m) => h('a', { href: `#/memory/${m.id}` }, clip(m.content, 90)) },
      { label: 'trust', render: (m) => trustBar(m.trust_score) },
      { label: 'added', render: (m) => h('span', { class: 'nowrap', title: fmtTime(m.created_at) }, ago(m.created_at)) },
    ], recent.value.items, { empty: 'No memories yet.' }));

  const auditPanel = h('section', { class: 'panel', id: 'recent-calls' },
    h('h2', {}, 'Recent tool calls'),
    !audit.ok ? errorBox(audit.error) : audit.value.error ? h('div', { class: 'muted' }, audit.value.error) : table([
      { label: 'when', render: (r) => h('span', { class: 'nowrap', title: fmtTime(r.time) }, ago(r.time)) },
      { label: 'call', render: (r) => `${r.server}/${r.tool}` },
      { label: 'role', render: (r) => r.role || '—' },
      { label: 'outcome', render: (r) => badge(r.outcome) },
      { label: 'latency', num: true, render: (r) => `${num(r.latency_ms, 1)} ms` },
    ], audit.value.records, { empty: 'No broker calls recorded yet.' }));

  return h('div', {},
    h('h1', {}, 'Overview'),
    h('div', { class: 'cols' }, services, countsPanel),
    h('div', { style: { marginTop: '16px' } }, serverPanel),
    h('div', { class: 'cols', style: { marginTop: '16px' } }, memPanel, auditPanel));
}
