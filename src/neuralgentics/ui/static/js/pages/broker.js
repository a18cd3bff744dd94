import { api, all } from '../api.js';
import { h, badge, table, fmtTime, num, errorBox, clear } from '../dom.js';
import { histogramChart } from '../charts.js';

function serversPanel(servers) {
  return h('section', { class: 'panel', id: 'servers' },
    h('h2', {}, 'Servers'),
    !servers.ok ? h('div', { class: 'notice', id: 'broker-down' }, servers.error.message) : table([
      { label: 'server', render: (s) => [h('b', {}, s.name), s.summary ? h('div', { class: 'muted small' }, s.summary) : null] },
      { label: 'state', render: (s) => badge(s.state) },
      { label: 'transport', render: (s) => s.transport },
      { label: 'pid', num: true, render: (s) => s.pid ?? '—' },
      { label: 'tools', num: true, render: (s) => s.tools ?? '—' },
      { label: 'in flight', num: true, render: (s) => s.inflight },
      { label: 'restarts', num: true, render: (s) => s.restarts },
      { label: 'last error', cls: 'clip', render: (s) => (s.last_error ? h('span', { class: 'error', title: [s.last_error, ...(s.stderr_tail || [])].join('\n') }, s.last_error) : '—') },
    ], servers.value, { empty: 'No servers configured.' }));
}

function catalogPanel(roles, role, go, query) {
  const roleSel = h('select', { name: 'role', 'aria-label': 'catalog role', onchange: () => go('broker', [], { ...Object.fromEntries(query), role: roleSel.value }) },
    h('option', { value: '' }, `default (${roles.default_role || 'none set'})${roles.open_on ? ': no tools' : ''}`),
    (roles.roles || []).map((r) => h('option', { value: r, selected: r === role ? true : null }, r)));
  const body = h('div', { id: 'catalog-body' }, h('p', { class: 'muted' }, 'Rendering the catalog…'));
  api('/ui/api/catalog', { params: { role } }).then((cat) => {
    const saved = cat.full_schema_tokens > 0 ? 1 - cat.tokens / cat.full_schema_tokens : 0;
    clear(body,
      h('div', { class: 'tokens', id: 'catalog-tokens' },
        h('span', {}, h('b', { dataset: { tokens: cat.tokens } }, `${cat.tokens} tokens`), ' catalog'),
        h('span', { class: 'meter', title: `${Math.round(saved * 100)}% fewer tokens` }, h('i', { style: { width: `${cat.full_schema_tokens ? Math.max(1, (cat.tokens / cat.full_schema_tokens) * 100) : 100}%` } })),
        h('span', {}, h('b', {}, `${cat.full_schema_tokens}`), ' tokens as full schemas', cat.full_schema_tokens ? h('span', { class: 'muted' }, ` (${Math.round(saved * 100)}% saved)`) : null)),
      table([
        { label: 'server', render: (s) => h('b', {}, s.name) },
        { label: 'summary', render: (s) => s.summary || h('span', { class: 'muted' }, '—') },
        { label: 'tools', render: (s) => h('span', { class: 'small' }, s.tools.join(', ')) },
        { label: 'schema tokens', num: true, render: (s) => s.schema_tokens },
      ], cat.servers, { empty: `No tools visible to role ${cat.role ?? '(default)'}.` }),
      h('h3', {}, 'What the agent reads'),
      h('pre', { id: 'catalog-text' }, cat.text));
  }).catch((err) => clear(body, errorBox(err)));
  return h('section', { class: 'panel', id: 'catalog' },
    h('h2', {}, 'Catalog per role'),
    h('div', { class: 'toolbar' }, h('label', { class: 'field' }, 'role', roleSel),
      roles.error ? h('span', { class: 'error small' }, roles.error) : null),
    roles.open_on && role === roles.open_on ? h('p', { class: 'notice small', id: 'catalog-role-note' },
      `The default role sees no server, so this shows role ${role}. Roles with tools: ${roles.with_tools.join(', ')}.`) : null,
    body);
}

function intentPanel(role) {
  const input = h('input', { type: 'search', class: 'wide', name: 'intent', placeholder: 'e.g. what time is it in Tokyo', 'aria-label': 'intent' });
  const out = h('div', { id: 'intent-results' });
  const form = h('form', { class: 'filters', onsubmit: async (ev) => {
    ev.preventDefault();
    const intent = input.value.trim();
    if (!intent) return;
    clear(out, h('p', { class: 'muted' }, 'Matching…'));
    try {
      const res = await api('/ui/api/broker/match', { method: 'POST', body: { intent, role: role || null, top_k: 5 } });
      const cands = res.candidates || res.matches || [];
      clear(out,
        h('p', { class: 'small' }, `confidence ${num(res.confidence, 2)}`, res.threshold != null ? ` (threshold ${num(res.threshold, 2)}: ${res.confident ? 'confident, would be called' : 'not confident, the agent is asked to choose'})` : ''),
        table([
          { label: '#', num: true, render: (c) => cands.indexOf(c) + 1 },
          { label: 'tool', render: (c) => h('b', {}, `${c.server}/${c.tool}`) },
          { label: 'score', num: true, render: (c) => num(c.score, 3) },
          { label: 'lexical', num: true, render: (c) => (c.lexical != null ? num(c.lexical, 3) : '—') },
          { label: 'semantic', num: true, render: (c) => (c.semantic != null ? num(c.semantic, 3) : '—') },
          { label: 'why', render: (c) => h('span', { class: 'why' }, c.why || '') },
        ], cands, { empty: 'No tool matches this intent.', rowAttrs: (c) => ({ class: 'candidate', dataset: { tool: `${c.server}/${c.tool}` } }) }),
        (res.skills || []).length ? [h('h3', {}, 'Skills'), table([
          { label: 'skill', render: (k) => k.name || k.id },
          { label: 'score', num: true, render: (k) => num(k.score, 3) },
          { label: 'why', render: (k) => h('span', { class: 'why' }, k.why || '') },
        ], res.skills)] : null);
    } catch (err) {
      clear(out, err.status === 404 && /Not Found/i.test(err.message) ? h('div', { class: 'notice' }, 'This broker has no POST /match route yet.') : errorBox(err));
    }
  } }, input, h('button', { type: 'submit' }, 'Match'));
  return h('section', { class: 'panel', id: 'intent' },
    h('h2', {}, 'Intent → tool'),
    h('p', { class: 'muted small' }, `Ranked among the tools ${role ? `role ${role}` : 'the default role'} may call (hybrid BM25 + MiniLM).`),
    form, out);
}

function auditPanel(audit, query, go) {
  const f = { role: query.get('a_role') || '', server: query.get('a_server') || '', outcome: query.get('a_outcome') || '', tool: query.get('a_tool') || '' };
  const facets = audit.facets || {};
  const select = (name, label) => {
    const el = h('select', { name, 'aria-label': `audit ${name}` }, h('option', { value: '' }, 'all'),
      (facets[name] || []).map((v) => h('option', { value: v, selected: v === f[name] ? true : null }, v)));
    return h('label', { class: 'field' }, label, el);
  };
  const tool = h('input', { type: 'text', name: 'tool', value: f.tool, placeholder: 'any', size: 12 });
  const form = h('form', { class: 'filters', onsubmit: (ev) => {
    ev.preventDefault();
    const data = new FormData(form);
    go('broker', [], { ...Object.fromEntries(query), a_role: data.get('role'), a_server: data.get('server'), a_outcome: data.get('outcome'), a_tool: data.get('tool') });
  } }, select('role', 'role'), select('server', 'server'), select('outcome', 'outcome'), h('label', { class: 'field' }, 'tool', tool),
  h('button', { type: 'submit' }, 'Filter'),
  h('button', { type: 'button', class: 'secondary', onclick: () => go('broker', [], { ...Object.fromEntries(query), t: Date.now() }) }, 'Refresh'));
  const lat = audit.records.map((r) => r.latency_ms).sort((a, b) => a - b);
  return h('section', { class: 'panel', id: 'audit' },
    h('h2', {}, 'Audit log ', h('span', { class: 'muted small' }, `${audit.matched} of ${audit.total} calls`, audit.source ? ` · ${audit.source}` : '')),
    audit.error ? h('div', { class: 'notice' }, audit.error) : null,
    form,
    h('h3', {}, 'Outcomes'), h('div', { class: 'stats', id: 'audit-outcomes' },
      Object.entries(audit.outcomes || {}).map(([k, v]) => h('div', { class: 'stat' }, h('b', {}, v), badge(k)))),
    h('h3', {}, `Latency of the ${audit.matched} matching calls`), histogramChart(audit.histogram),
    lat.length ? h('p', { class: 'small muted' }, `median of the ${lat.length} listed below: ${num(lat[Math.floor((lat.length - 1) / 2)], 1)} ms`) : null,
    h('h3', {}, 'Calls, newest first'),
    table([
      { label: 'time', cls: 'nowrap', render: (r) => fmtTime(r.time) },
      { label: 'role', render: (r) => r.role || '—' },
      { label: 'server', render: (r) => r.server },
      { label: 'tool', render: (r) => h('b', {}, r.tool) },
      { label: 'outcome', render: (r) => badge(r.outcome) },
      { label: 'latency', num: true, render: (r) => `${num(r.latency_ms, 1)} ms` },
      { label: 'front', render: (r) => r.front || '—' },
      { label: 'arguments', cls: 'clip', render: (r) => h('code', { title: JSON.stringify(r.args, null, 1) }, JSON.stringify(r.args)) },
      { label: 'error', cls: 'clip', render: (r) => (r.error ? h('span', { class: 'error', title: `${r.error}${r.rule ? `\nrule: ${r.rule}` : ''}` }, r.error) : '') },
    ], audit.records, { empty: 'No calls match.', rowAttrs: (r) => ({ class: 'audit-row', dataset: { tool: `${r.server}/${r.tool}`, outcome: r.outcome } }) }));
}

export async function render({ query, go }) {
  const [status, roles, audit] = await all([
    api('/ui/api/broker-status'),
    api('/ui/api/roles'),
    api('/ui/api/audit', { params: { role: query.get('a_role'), server: query.get('a_server'), outcome: query.get('a_outcome'), tool: query.get('a_tool'), limit: 200 } }),
  ]);
  const st = status.ok ? status.value : { error: status.error.message, servers: [] };
  const servers = st.error ? { ok: false, error: { message: `Broker ${st.error}` } } : { ok: true, value: st.servers };
  const brokerDown = !st.reachable;
  // no role asked for: the default one, or a role that has tools when the default has none
  const role = query.get('role') || (roles.ok && roles.value.open_on) || '';
  return h('div', {},
    h('h1', {}, 'Broker'),
    serversPanel(servers),
    brokerDown ? null : h('div', { class: 'cols', style: { marginTop: '16px' } },
      catalogPanel(roles.ok ? roles.value : { roles: [] }, role, go, query),
      intentPanel(role)),
    h('div', { style: { marginTop: '16px' } }, audit.ok ? auditPanel(audit.value, query, go) : errorBox(audit.error)));
}
