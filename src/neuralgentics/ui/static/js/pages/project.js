import { api } from '../api.js';
import { h, badge, table, fmtTime, ago, num, errorBox, clear } from '../dom.js';

const kb = (n) => (n >= 1048576 ? `${(n / 1048576).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} kB` : `${n} B`);

function lastRun(run) {
  if (!run || !Object.keys(run).length) return '—';
  return h('span', { class: 'small' }, `${run.new ?? 0} new · ${run.changed ?? 0} changed · ${run.unchanged ?? 0} unchanged · ${run.removed ?? 0} removed · ${run.skipped ?? 0} skipped · ${run.embedded ?? 0} embedded · ${num(run.seconds, 2)} s`);
}

async function filesTab(root) {
  const res = await api('/ui/api/project/files', { params: { root } });
  return h('div', { id: 'project-files' },
    h('p', { class: 'muted small' }, `${res.total} files, ${res.chunks} chunks. `,
      Object.entries(res.languages).map(([lang, n]) => h('span', { class: 'tag' }, `${lang} ${n}`))),
    table([
      { label: 'file', render: (f) => f.path },
      { label: 'language', render: (f) => f.language },
      { label: 'chunks', num: true, render: (f) => f.chunks },
      { label: 'size', num: true, render: (f) => kb(f.size) },
    ], res.files, { empty: 'No files indexed.' }),
    res.total > res.files.length ? h('p', { class: 'muted small' }, `first ${res.files.length} shown`) : null);
}

async function skippedTab(root) {
  const res = await api('/ui/api/project/skipped', { params: { root } });
  return h('div', { id: 'project-skipped' },
    h('p', { class: 'muted small' }, `${res.total} files and folders the indexer leaves out, as of now, and why.`),
    table([
      { label: 'path', render: (f) => f.path },
      { label: 'why', render: (f) => f.reason },
    ], res.files, { empty: 'Nothing is skipped.' }));
}

function searchTab(root, q, go, modeWanted) {
  const input = h('input', { type: 'search', class: 'wide', name: 'q', value: q, placeholder: 'search this project’s code', 'aria-label': 'search code' });
  const mode = h('select', { name: 'mode', 'aria-label': 'mode' }, ['hybrid', 'keyword', 'vector'].map((m) => h('option', { value: m, selected: m === modeWanted ? true : null }, m)));
  const out = h('div', { id: 'project-hits' });
  const run = async () => {
    const query = input.value.trim();
    if (!query) return;
    clear(out, h('p', { class: 'muted' }, 'Searching…'));
    try {
      const res = await api('/project/search', { method: 'POST', body: { query, project: root, top_k: 10, mode: mode.value } });
      clear(out, res.hits.length ? res.hits.map((x) => h('div', { class: 'panel hit', dataset: { file: x.file_path } },
        h('div', {}, h('b', {}, `${x.file_path}:${x.start_line}-${x.end_line}`), ' ', x.symbol ? h('span', { class: 'tag' }, `${x.kind} ${x.symbol}`) : h('span', { class: 'tag' }, x.kind),
          ' ', h('span', { class: 'why' }, `score ${num(x.score, 4)} · ${x.why}`)),
        h('pre', { style: { marginTop: '6px', maxHeight: '160px' } }, x.content))) : h('div', { class: 'empty' }, res.closest && res.closest.length ? `Nothing matches well (closest: ${res.closest.map((x) => x.file_path).join(', ')}).` : 'No code matches.'));
      if (res.embedded < res.chunks) out.prepend(h('p', { class: 'muted small' }, res.note));
    } catch (err) {
      clear(out, errorBox(err));
    }
  };
  const form = h('form', { class: 'filters', onsubmit: (ev) => { ev.preventDefault(); go('project', [], { root, tab: 'search', q: input.value.trim(), mode: mode.value }); } },
    input, h('label', { class: 'field' }, 'mode', mode), h('button', { type: 'submit' }, 'Search'));
  if (q) run();
  return h('div', {}, form, out);
}

// Re-index in the background (the indexer's own job), showing its progress until it ends.
function reindexButton(root, go, query) {
  const status = h('span', { class: 'muted small', id: 'reindex-status' });
  const button = h('button', { type: 'button', class: 'secondary', id: 'reindex', onclick: async () => {
    button.disabled = true;
    try {
      let job = await api('/project/index', { params: { path: root } });
      for (let i = 0; i < 1800 && (job.status === 'queued' || job.status === 'running'); i++) {
        const p = job.progress;
        status.textContent = p.phase === 'embedding'
          ? `embedding ${p.embedded}/${p.to_embed} chunks` + (p.rate ? ` · ${num(p.rate, 1)} chunks/s` : '')
            + (p.eta_s != null ? ` · ${Math.round(p.eta_s)} s left` : '') + ' · keyword search is ready'
          : `${job.status}: ${p.phase} ${p.files_done}/${p.files_total} files, ${p.chunks} chunks`;
        await new Promise((r) => setTimeout(r, 500));
        job = await api(`/project/index/${job.id}`);
      }
      if (job.status === 'failed') throw new Error(`indexing failed: ${job.error}`);
      go('project', [], { ...Object.fromEntries(query), root, t: Date.now() });
    } catch (err) {
      status.textContent = err.message;
      status.classList.add('error');
      button.disabled = false;
    }
  } }, 'Re-index now');
  return [button, status];
}

export async function render({ query, go }) {
  const info = await api('/ui/api/info');
  if (!info.indexer) {
    return h('div', {}, h('h1', {}, 'Project index'), h('div', { class: 'notice' }, 'The project indexer is not mounted in this build of memini-core.'));
  }
  const projects = await api('/project/list');
  const root = query.get('root') || (projects[0] && projects[0].root) || '';
  const tab = query.get('tab') || 'files';
  const list = h('section', { class: 'panel', id: 'projects' },
    h('h2', {}, `Indexed projects (${projects.length})`),
    table([
      { label: 'project', render: (p) => h('a', { href: `#/project?root=${encodeURIComponent(p.root)}`, style: { fontWeight: p.root === root ? 700 : 400 } }, p.root) },
      { label: 'status', render: (p) => badge(p.status) },
      { label: 'files', num: true, render: (p) => p.files },
      { label: 'chunks', num: true, render: (p) => p.chunks },
      { label: 'last run', render: (p) => (p.indexed_at ? h('span', { class: 'nowrap', title: fmtTime(p.indexed_at) }, ago(p.indexed_at)) : '—') },
      { label: 'last run summary', render: (p) => lastRun(p.last_run) },
    ], projects, { empty: 'No project indexed yet: run `neuralgentics index <path>`.' }));
  if (!root) return h('div', {}, h('h1', {}, 'Project index'), list);
  const tabs = h('div', { class: 'tabs' }, [['files', 'Files'], ['skipped', 'Skipped'], ['search', 'Search']].map(([key, label]) =>
    h('a', { href: `#/project?root=${encodeURIComponent(root)}&tab=${key}`, class: key === tab ? 'active' : null }, label)));
  let body;
  try {
    body = tab === 'skipped' ? await skippedTab(root) : tab === 'search' ? searchTab(root, query.get('q') || '', go, query.get('mode') || 'hybrid') : await filesTab(root);
  } catch (err) {
    body = errorBox(err);
  }
  return h('div', {}, h('h1', {}, 'Project index'), list,
    h('section', { class: 'panel', id: 'project-detail' },
      h('div', { class: 'toolbar' }, h('h2', { style: { margin: 0 } }, root), reindexButton(root, go, query)), tabs, body));
}
