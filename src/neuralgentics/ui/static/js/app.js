// Hash routes: #/overview, #/memories?q=…, #/memory/<id>, #/graph/<id>?depth=2, #/broker, #/project
import { api, login, tokenWasRefused } from './api.js';
import { h, clear, errorBox } from './dom.js';
import * as overview from './pages/overview.js';
import * as memories from './pages/memories.js';
import * as memory from './pages/memory.js';
import * as graph from './pages/graph.js';
import * as broker from './pages/broker.js';
import * as project from './pages/project.js';

const PAGES = { overview, memories, memory, graph, broker, project };
const NAV = { memory: 'memories' };
const main = document.getElementById('main');
const banner = document.getElementById('banner');
let generation = 0;

export function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path, query = ''] = raw.split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { page: parts[0] || 'overview', args: parts.slice(1), query: new URLSearchParams(query) };
}

export function go(page, args = [], query = {}) {
  const q = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== '' && v != null && v !== false));
  const hash = `#/${[page, ...args].map(encodeURIComponent).join('/')}${q.toString() ? `?${q}` : ''}`;
  if (location.hash === hash) route();
  else location.hash = hash;
}

function showTokenBanner(message) {
  banner.hidden = false;
  const input = h('input', { type: 'password', placeholder: 'NEURALGENTICS_TOKEN', autocomplete: 'off', 'aria-label': 'token' });
  const submit = async (ev) => {
    ev.preventDefault();
    if (await login(input.value.trim())) { banner.hidden = true; route(); } else showTokenBanner('The token given was refused.');
  };
  clear(banner, h('form', { onsubmit: submit },
    h('b', {}, 'This service needs its token. '), message, ' ', input, ' ', h('button', { type: 'submit' }, 'Use token'),
    h('div', { class: 'muted small' }, 'Run ', h('code', {}, 'neuralgentics ui'), ' in a terminal to open this page signed in, or paste the token from the file ',
      h('code', {}, 'neuralgentics up'), ' printed (', h('code', {}, '~/.config/neuralgentics/token'), ' unless NEURALGENTICS_CONFIG_DIR or NEURALGENTICS_TOKEN say otherwise). It is kept as a session cookie this page cannot read.')));
}

window.addEventListener('ng-unauthorized', () => showTokenBanner(tokenWasRefused() ? 'The token given was refused.' : ''));

async function route() {
  const mine = ++generation;
  const { page, args, query } = parseHash();
  const mod = PAGES[page] || overview;
  for (const a of document.querySelectorAll('#nav a')) a.classList.toggle('active', a.dataset.page === (NAV[page] || page));
  document.body.dataset.page = page;
  delete main.dataset.ready;
  clear(main, h('p', { class: 'muted' }, 'Loading…'));
  try {
    const el = await mod.render({ args, query, go, stale: () => mine !== generation });
    if (mine !== generation) return; // the user moved on while this page loaded
    clear(main, el);
    main.dataset.ready = page;
  } catch (err) {
    if (mine !== generation) return;
    clear(main, errorBox(err));
    main.dataset.ready = page;
  }
}

window.addEventListener('hashchange', route);
document.getElementById('refresh').addEventListener('click', () => route());
api('/ui/api/info').then((info) => {
  document.getElementById('whoami').textContent = `memini-core ${info.version}${info.token_required ? ' · token' : ''}`;
}).catch(() => {});
route();
