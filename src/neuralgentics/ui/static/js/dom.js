// Tiny DOM builder: every piece of data goes in as text, never as HTML.
const SVG_NS = 'http://www.w3.org/2000/svg';

function build(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value == null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'style' && typeof value === 'object') Object.assign(el.style, value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'value' && 'value' in el) el.value = value;
    else if (key === 'checked' && 'checked' in el) el.checked = !!value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export const h = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);
export const s = (tag, attrs, ...children) => build(document.createElementNS(SVG_NS, tag), attrs, children);

export function clear(el, ...children) {
  el.replaceChildren();
  return build(el, {}, children);
}

export function fmtTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function ago(iso) {
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, (Date.now() - t) / 1000);
  if (s < 60) return `${Math.round(s)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

export const num = (x, digits = 3) => (x == null ? '—' : Number(x).toFixed(digits));
export const clip = (text, n = 160) => (text.length > n ? text.slice(0, n - 1) + '…' : text);
export const badge = (state) => h('span', { class: `badge ${state}` }, state);

export function trustBar(score) {
  return h('span', { class: 'nowrap', title: `trust ${num(score, 2)}` },
    h('span', { class: 'trustbar' }, h('i', { style: { width: `${Math.round(score * 100)}%` } })),
    num(score, 2));
}

export function errorBox(err) {
  return h('div', { class: 'notice error', role: 'alert' }, err?.message || String(err));
}

export function table(columns, rows, { empty = 'Nothing here yet.', rowAttrs } = {}) {
  if (!rows.length) return h('div', { class: 'empty' }, empty);
  return h('table', {},
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { class: c.num ? 'num' : null }, c.label)))),
    h('tbody', {}, rows.map((r) => h('tr', rowAttrs ? rowAttrs(r) : {},
      columns.map((c) => h('td', { class: c.num ? 'num' : c.cls || null }, c.render(r)))))));
}

export const isUuid = (text) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(text);
