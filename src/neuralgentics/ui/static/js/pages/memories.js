import { api } from '../api.js';
import { h, table, fmtTime, ago, clip, trustBar, num, errorBox } from '../dom.js';

const PAGE = 50;

// One sentence of why a hit ranked where it did, from the query's `why`.
export function whyText(why, contradicts = []) {
  const parts = [];
  if (why.vector_rank != null) parts.push(['vector ', h('b', {}, `#${why.vector_rank}`), ` (cos ${num(why.similarity, 2)})`]);
  else parts.push('no vector match');
  if (why.keyword_rank != null) parts.push(['keyword ', h('b', {}, `#${why.keyword_rank}`), ` (exact tokens ${num(why.exact_match, 2)})`]);
  else parts.push('no keyword match');
  parts.push([`relevance ${num(why.relevance, 3)} + trust ${num(why.trust, 2)} → `, h('b', {}, num(why.score, 3))]);
  if (why.newer) parts.push(`under a newer memory ${why.newer.slice(0, 8)}`);
  if (contradicts.length) parts.push(h('b', {}, `contradicted by ${contradicts.map((i) => i.slice(0, 8)).join(', ')}`));
  return h('span', { class: 'why' }, parts.flatMap((p, i) => (i ? [' · ', p] : [p])));
}

function tags(m) {
  return m.tags.map((t) => h('span', { class: 'tag' }, t));
}

export async function render({ query, go }) {
  const q = query.get('q') || '';
  const filters = {
    project: query.get('project') || '',
    source_type: query.get('source_type') || '',
    min_trust: query.get('min_trust') || '',
    include_superseded: query.get('superseded') === '1',
  };
  const offset = Number(query.get('offset') || 0);

  const qInput = h('input', { type: 'search', name: 'q', class: 'wide', value: q, placeholder: 'search memories (hybrid: meaning + keywords)', 'aria-label': 'search' });
  const project = h('input', { type: 'text', name: 'project', value: filters.project, list: 'projects-list', placeholder: 'any' });
  const source = h('input', { type: 'text', name: 'source_type', value: filters.source_type, list: 'sources-list', placeholder: 'any', size: 10 });
  const minTrust = h('input', { type: 'number', name: 'min_trust', min: 0, max: 1, step: 0.05, value: filters.min_trust, placeholder: '0–1', style: { width: '80px' } });
  const superseded = h('input', { type: 'checkbox', name: 'superseded', checked: filters.include_superseded });
  const form = h('form', { class: 'filters', onsubmit: (ev) => {
    ev.preventDefault();
    go('memories', [], { q: qInput.value.trim(), project: project.value.trim(), source_type: source.value.trim(),
      min_trust: minTrust.value, superseded: superseded.checked ? '1' : '' });
  } },
  h('label', { class: 'field' }, 'query', qInput),
  h('label', { class: 'field' }, 'project', project),
  h('label', { class: 'field' }, 'source type', source),
  h('label', { class: 'field' }, 'min trust', minTrust),
  h('label', { class: 'field' }, 'superseded', h('span', {}, superseded, ' include')),
  h('button', { type: 'submit' }, q ? 'Search' : 'Search / filter'),
  q ? h('button', { type: 'button', class: 'secondary', onclick: () => go('memories', [], { ...Object.fromEntries(query), q: '', offset: '' }) }, 'Clear query') : null);

  const params = {
    project: filters.project || null,
    source_type: filters.source_type || null,
    min_trust: filters.min_trust === '' ? null : Number(filters.min_trust),
    include_superseded: filters.include_superseded,
  };
  let body;
  let seen = [];
  try {
    if (q) {
      const res = await api('/memory/query', { method: 'POST', body: { query: q, top_k: 25, ...Object.fromEntries(Object.entries(params).filter(([, v]) => v !== null)) } });
      seen = res.hits.map((x) => x.memory);
      body = h('div', { id: 'results' },
        h('p', { class: 'muted small' }, `${res.hits.length} hit${res.hits.length === 1 ? '' : 's'} for “${q}”, best first. Score = reciprocal-rank fusion of the vector and keyword rankings, weighted by trust.`),
        table([
          { label: '#', num: true, render: (x) => res.hits.indexOf(x) + 1 },
          { label: 'memory', cls: 'content', render: (x) => [h('a', { href: `#/memory/${x.memory.id}` }, clip(x.memory.content, 200)), h('div', {}, tags(x.memory))] },
          { label: 'why it ranked', render: (x) => whyText(x.why, x.contradicts) },
          { label: 'project', cls: 'clip', render: (x) => x.memory.project || '—' },
          { label: 'trust', render: (x) => trustBar(x.memory.trust_score) },
        ], res.hits, { empty: 'No memory matches.', rowAttrs: (x) => ({ class: x.memory.superseded_by ? 'superseded hit' : 'hit', dataset: { id: x.memory.id } }) }));
    } else {
      const res = await api('/memory', { params: { ...params, include_superseded: params.include_superseded ? 'true' : null, limit: PAGE, offset } });
      seen = res.items;
      body = h('div', { id: 'results' },
        h('p', { class: 'muted small' }, `${res.total} memor${res.total === 1 ? 'y' : 'ies'}, newest first.`),
        table([
          { label: 'memory', cls: 'content', render: (m) => [h('a', { href: `#/memory/${m.id}` }, clip(m.content, 200)), h('div', {}, tags(m))] },
          { label: 'project', cls: 'clip', render: (m) => m.project || '—' },
          { label: 'source', render: (m) => m.source_type || '—' },
          { label: 'trust', render: (m) => trustBar(m.trust_score) },
          { label: 'added', render: (m) => h('span', { class: 'nowrap', title: fmtTime(m.created_at) }, ago(m.created_at)) },
          { label: '', render: (m) => (m.superseded_by ? h('span', { class: 'badge' }, 'superseded') : '') },
        ], res.items, { empty: 'No memories match these filters.', rowAttrs: (m) => ({ class: m.superseded_by ? 'superseded' : null, dataset: { id: m.id } }) }),
        res.total > PAGE ? h('div', { class: 'pager' },
          h('button', { class: 'secondary', disabled: offset <= 0, onclick: () => go('memories', [], { ...Object.fromEntries(query), offset: Math.max(0, offset - PAGE) }) }, '← newer'),
          h('span', { class: 'muted small' }, `${offset + 1}–${Math.min(res.total, offset + PAGE)} of ${res.total}`),
          h('button', { class: 'secondary', disabled: offset + PAGE >= res.total, onclick: () => go('memories', [], { ...Object.fromEntries(query), offset: offset + PAGE }) }, 'older →')) : null);
    }
  } catch (err) {
    body = errorBox(err);
  }
  // Suggestions for the filter boxes, from what is on screen.
  const uniq = (xs) => [...new Set(xs.filter(Boolean))].sort();
  return h('div', {},
    h('h1', {}, 'Memories'),
    h('section', { class: 'panel' }, form, body),
    h('datalist', { id: 'projects-list' }, uniq(seen.map((m) => m.project)).map((p) => h('option', { value: p }))),
    h('datalist', { id: 'sources-list' }, uniq(['agent', 'user', 'task_result', ...seen.map((m) => m.source_type)]).map((p) => h('option', { value: p }))));
}
