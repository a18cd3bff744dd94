// Every data request goes to memini-core (one origin). The token never lives in the page: the
// server trades `/ui?token=...` (or the token typed into the banner) for an HttpOnly session
// cookie, which the browser sends with each request and no script can read.

export class ApiError extends Error {
  constructor(status, code, message, field) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

let refused = false;
export const tokenWasRefused = () => refused;

// The banner's token, exchanged for the session cookie. Resolves true when it was accepted.
export async function login(token) {
  const resp = await fetch('/ui/session', {
    method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ token }),
  });
  refused = resp.status === 401;
  return resp.ok;
}

export async function api(path, { method = 'GET', body, params } = {}) {
  const url = new URL(path, location.origin);
  for (const [key, value] of Object.entries(params || {})) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v !== null && v !== undefined && v !== '') url.searchParams.append(key, v);
    }
  }
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let resp;
  try {
    resp = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, 'network', `memini-core is not reachable (${e.message})`);
  }
  if (resp.status === 204) return null;
  const text = await resp.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!resp.ok) {
    const err = (data && data.error) || {};
    const detail = data && typeof data.detail === 'string' ? data.detail : null;
    const message = err.message || detail || text.slice(0, 300) || resp.statusText;
    const e = new ApiError(resp.status, err.code ?? resp.status, message, err.field);
    if (resp.status === 401) window.dispatchEvent(new CustomEvent('ng-unauthorized', { detail: e }));
    throw e;
  }
  return data;
}

// Settle several requests at once; each result is {ok, value} or {ok: false, error}.
export async function all(requests) {
  const out = await Promise.allSettled(requests);
  return out.map((r) => (r.status === 'fulfilled' ? { ok: true, value: r.value } : { ok: false, error: r.reason }));
}
