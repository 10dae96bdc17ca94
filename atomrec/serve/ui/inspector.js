// AtomRec inspector: a view of one memory through the service's public API, with the caller's key.
// No library, no remote asset: DOM and SVG built by hand. Every text from the API goes in as text (never as HTML).
'use strict';

const BASE = new URL('..', location.href).href.replace(/\/$/, '');   // the service: the page is at BASE/ui/
const KEY_STORE = 'atomrec-inspector-key', USER_STORE = 'atomrec-inspector-user';
const POLL_MS = 1000;
const state = { key: sessionStorage.getItem(KEY_STORE), version: null, accepted: null, refresh: null, route: null };

// ---- building DOM and SVG ----
function build(ns, tag, attrs, kids) {
  const e = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'class' && !ns) e.className = v;
    else if (k === 'style') e.style.cssText = v;   // through the CSSOM: the page's policy refuses style attributes
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of (kids || []).flat(Infinity)) if (c !== null && c !== undefined && c !== false) e.append(c instanceof Node ? c : String(c));
  return e;
}
const h = (tag, attrs, ...kids) => build(null, tag, attrs, kids);
const SVG = 'http://www.w3.org/2000/svg';
const s = (tag, attrs, ...kids) => build(SVG, tag, attrs, kids);

// ---- the API ----
class ApiError extends Error {
  constructor(status, body) { super(`${status}: ${body.error || 'error'}`); this.status = status; this.body = body; }
}
async function api(method, path, body) {
  const headers = { 'Accept': 'application/json' };
  if (state.key) headers['Authorization'] = 'Bearer ' + state.key;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const r = await fetch(BASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: 'omit' });
  let out; try { out = await r.json(); } catch (e) { out = { error: `the service answered ${r.status} without JSON` }; }
  if (!r.ok) throw new ApiError(r.status, out);
  return out;
}
const enc = encodeURIComponent;

function say(err) {   // the API's refusal, as it said it: status, problem, fix
  const box = document.getElementById('message');
  box.replaceChildren();
  if (!err) { box.hidden = true; return; }
  const body = err instanceof ApiError ? err.body : { error: String(err && err.message || err) };
  box.append(h('strong', {}, err instanceof ApiError ? `${err.status}: ` : ''), h('span', { class: 'problem' }, body.error || ''),
             body.fix ? h('span', { class: 'fix' }, 'Fix: ' + body.fix) : null);
  box.dataset.status = err instanceof ApiError ? err.status : '';
  box.hidden = false;
}

// ---- formatting ----
function when(t) {   // event timestamps are seconds; small ones (synthetic data) are shown as they are
  if (typeof t !== 'number') return '';
  if (Math.abs(t) < 1e8) return 't = ' + t;
  return new Date(t * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}
const chips = (xs, cls) => (xs || []).map(x => h('span', { class: 'chip ' + cls, 'data-value': x }, x));
const isOther = id => id.startsWith('other:');
const noteLink = (id, text) => isOther(id) ? h('span', { class: 'pseudonym', title: "another user's note: its pseudonym" }, text || id)
                                           : h('a', { href: '#/note/' + enc(id), 'data-note': id }, text || id);
function wrap(text, width) {   // words into lines of at most `width` characters (a longer word is a line of its own)
  const lines = []; let cur = '';
  for (const w of String(text).split(/\s+/)) {
    if (cur && (cur + ' ' + w).length > width) { lines.push(cur); cur = w; } else cur = cur ? cur + ' ' + w : w;
  }
  if (cur) lines.push(cur);
  return lines.length ? lines : [''];
}
const lineup = (text, width, most) => { const ls = wrap(text, width); return ls.length <= most ? ls : [...ls.slice(0, most - 1), clip(ls.slice(most - 1).join(' '), width)]; };
const clip = (t, n) => t.length > n ? t.slice(0, n - 1) + '…' : t;

// ---- the header: key, navigation, the live version ----
function drawKey() {
  const box = document.getElementById('keybox');
  box.replaceChildren(state.key === null ? h('span', {}, 'no key') :
    h('span', {}, 'key ', h('b', {}, state.key ? '•'.repeat(6) + state.key.slice(-4) : '(none: open service)')),
    state.key === null ? null : h('button', { class: 'quiet', type: 'button', onclick: () => { sessionStorage.removeItem(KEY_STORE); state.key = null; drawKey(); route(); } }, 'change key'));
}
function drawNav(user, active) {
  const nav = document.getElementById('nav');
  nav.replaceChildren();
  if (!user) return;
  const link = (href, text, name) => h('a', { href, 'aria-current': active === name ? 'page' : null }, text);
  nav.append(link('#/user/' + enc(user), `memory of ${user}`, 'user'), link('#/rank/' + enc(user), 'why this ranking', 'rank'));
}
async function poll() {
  try {
    const r = await api('GET', '/v1/health');
    const changed = r.version !== state.version;
    state.version = r.version; state.accepted = r.accepted;
    document.getElementById('version').textContent = r.version;
    document.getElementById('accepted').textContent = r.accepted;
    document.getElementById('queue').textContent = r.accepted - r.version;
    document.getElementById('live').classList.toggle('busy', r.accepted > r.version);
    if (changed && state.refresh) await state.refresh().catch(say);   // e.g. the user was forgotten meanwhile: the API's 404 is shown
  } catch (e) { /* the service did not answer: the next poll tries again */ }
  setTimeout(poll, POLL_MS);
}

// ---- views ----
function keyView(next) {
  const input = h('input', { type: 'password', id: 'key', autocomplete: 'off', placeholder: 'the API key', required: false });
  const form = h('form', { class: 'inline card', onsubmit: ev => {
      ev.preventDefault(); state.key = input.value.trim(); sessionStorage.setItem(KEY_STORE, state.key); drawKey(); route(next); } },
    h('label', { for: 'key' }, 'API key (sent as Authorization: Bearer KEY; empty for a service without keys)', input),
    h('button', { type: 'submit' }, 'Use this key'));
  return [h('h1', {}, 'Your key'), h('p', { class: 'sub' }, 'The inspector calls the service\'s public API with this key: it shows only what the key may read. The key stays in this tab (session storage).'), form];
}

function homeView() {
  const input = h('input', { type: 'text', id: 'user', value: localStorage.getItem(USER_STORE) || '', placeholder: 'user id', required: true });
  const go = where => { const u = input.value.trim(); if (u) { localStorage.setItem(USER_STORE, u); location.hash = `#/${where}/${enc(u)}`; } };
  return [h('h1', {}, 'Which user?'),
    h('form', { class: 'inline card', onsubmit: ev => { ev.preventDefault(); go('user'); } },
      h('label', { for: 'user' }, 'user id', input), h('button', { type: 'submit' }, 'Show memory'),
      h('button', { type: 'button', class: 'quiet', onclick: () => go('rank') }, 'Why this ranking')),
    h('p', { class: 'sub' }, 'A user\'s memory: their notes as a timeline. A note: its fields, links and revisions. Why this ranking: candidates ranked, with the evidence paths behind each.')];
}

function noteText(n) { return [n.id, n.item, n.context, n.content, ...(n.keywords || []), ...(n.tags || [])].join(' ').toLowerCase(); }

async function userView(user) {
  const main = document.getElementById('main');
  const search = h('input', { type: 'search', id: 'search', placeholder: 'search item, keywords, tags, context, text  (press / to focus)', 'aria-label': 'search the notes' });
  const count = h('span', { class: 'sub', id: 'count', 'aria-live': 'polite' });
  const list = h('ol', { class: 'timeline', id: 'timeline', 'aria-label': 'notes, newest first' });
  const seen = new Set();
  const filter = () => {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const li of list.children) { const ok = words.every(w => li.dataset.text.includes(w)); li.hidden = !ok; shown += ok; }
    count.textContent = `${shown} of ${list.children.length} notes shown`;
  };
  search.addEventListener('input', filter);
  const load = async () => {
    const r = await api('GET', `/v1/users/${enc(user)}/notes`);
    const fresh = seen.size > 0;
    list.replaceChildren(...r.notes.slice().reverse().map(n => {
      const li = h('li', { 'data-note': n.id, class: fresh && !seen.has(n.id) ? 'new' : null },
        h('a', { class: 'row', href: '#/note/' + enc(n.id) },
          h('div', { class: 'when' }, h('b', { class: 'item' }, n.item), h('span', { class: 'time' }, when(n.timestamp))),
          h('div', {},
            h('div', { class: 'facets' }, chips(n.keywords, 'kw'), chips(n.tags, 'tag')),
            h('div', { class: 'ctx' }, n.context || ''),
            h('div', { class: 'meta' }, `${n.id} · ${(n.links || []).length} links · revision ${n.version}`))));
      li.dataset.text = noteText(n);
      return li;
    }));
    r.notes.forEach(n => seen.add(n.id));
    main.dataset.version = r.version;
    filter();
  };
  await load();
  state.refresh = load;
  return [h('h1', {}, `Memory of ${user}`),
    h('div', { class: 'tools' }, search, count, h('a', { href: '#/rank/' + enc(user) }, 'why this ranking →')),
    list];
}

const narrow = window.matchMedia('(max-width: 720px)');   // a phone: graphs drawn top to bottom instead of left to right

function nodeBox(id, x, y, w, ht, what, extra) {   // a note as a box: its id, what it is; a link to its page unless a pseudonym (or `extra` says not)
  const kind = isOther(id) ? 'other' : id.startsWith('item:') ? 'item' : 'user';
  const g = s('g', { class: `node ${kind} ${extra || ''}`, 'data-note': id },
    s('rect', { x, y, width: w, height: ht, rx: 6 }),
    s('text', { class: 'id', x: x + 8, y: y + (what ? 16 : ht / 2 + 4) }, clip(id, Math.floor((w - 14) / 7.4))),
    what ? s('text', { class: 'what', x: x + 8, y: y + 32 }, clip(what, Math.floor((w - 14) / 6.2))) : null,
    s('title', {}, what ? `${id}: ${what}` : id));
  return isOther(id) || extra ? g : s('a', { href: '#/note/' + enc(id), 'aria-label': `note ${id}` }, g);
}
const edgeText = (x, y, lines, dy) => s('text', { x, y }, lines.map((l, i) => s('tspan', { x, dy: i ? dy : 0 }, l)));

function linkGraph(note) {   // the note on top, a trunk down from it, each link a branch to its target with the relation text on the branch
  const links = note.links || [], other = l => isOther(l.note) ? "another user's note" : '';
  const W = narrow.matches ? 340 : 450, chars = narrow.matches ? 44 : 60;
  const rels = links.map(l => lineup(l.relation, chars, 2));
  const H = 46 + rels.reduce((a, r) => a + r.length * 13 + 40, 0);
  const svg = s('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${note.id} and its ${links.length} links`, class: 'links' });
  let y = 42;
  links.forEach((l, k) => {
    const rel = rels[k], by = y + rel.length * 13 + 4;   // the relation's lines, then the target's box
    svg.append(s('g', { class: 'edge', 'data-from': note.id, 'data-to': l.note, 'data-relation': l.relation },
      s('path', { d: `M14,34 L14,${by + 14} L40,${by + 14}` }), edgeText(40, y + 10, rel, 13), s('title', {}, l.relation)));
    svg.append(nodeBox(l.note, 40, by, Math.min(260, W - 44), 28, other(l)));
    y = by + 36;
  });
  svg.append(nodeBox(note.id, 4, 4, 200, 30, '', 'center'));
  return h('div', { class: 'graph' }, svg);
}

function diffRows(before, after) {   // field by field: what a revision removed and added
  const rows = [];
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  for (const f of fields) {
    const b = before[f], a = after[f];
    if (JSON.stringify(b) === JSON.stringify(a)) continue;
    if (f === 'links') {
      const key = l => l[0] + '\u0000' + l[1], bs = new Set((b || []).map(key)), as = new Set((a || []).map(key));
      for (const l of b || []) if (!as.has(key(l))) rows.push([f, 'removed', l[0], l[1]]);
      for (const l of a || []) if (!bs.has(key(l))) rows.push([f, 'added', l[0], l[1]]);
    } else if (Array.isArray(b) || Array.isArray(a)) {
      const bs = new Set(b || []), as = new Set(a || []);
      for (const x of b || []) if (!as.has(x)) rows.push([f, 'removed', x]);
      for (const x of a || []) if (!bs.has(x)) rows.push([f, 'added', x]);
      if (!rows.some(r => r[0] === f)) rows.push([f, 'reordered', (a || []).join(', ')]);
    } else { if (b !== undefined && b !== null) rows.push([f, 'removed', String(b)]); if (a !== undefined && a !== null) rows.push([f, 'added', String(a)]); }
  }
  return rows;
}

function revision(r) {
  const rows = diffRows(r.before, r.after);
  return h('li', { class: 'revision card', 'data-version': r.version, 'data-cause': r.cause || '', 'data-at': r.at ?? '' },   // another user's revision: no cause, no time
    h('h3', {}, `revision ${r.version} · ${r.at == null ? 'time withheld' : when(r.at)} · caused by `, r.cause ? noteLink(r.cause) : "another user's note (withheld)"),
    rows.length ? h('table', { class: 'list diff' }, h('thead', {}, h('tr', {}, h('th', {}, 'field'), h('th', {}, 'change'), h('th', {}, 'value'))),
      h('tbody', {}, rows.map(([f, change, v, rel]) => h('tr', { 'data-field': f, 'data-change': change, 'data-value': v, 'data-relation': rel },
        h('td', {}, f), h('td', {}, change), h('td', { class: change }, f === 'links' ? [noteLink(v), ' — ', rel] : v)))))
      : h('p', { class: 'empty' }, 'no field changed'));
}

async function noteView(id) {
  const r = await api('GET', `/v1/notes/${enc(id)}`);
  const n = r.note;
  const same = v => JSON.stringify([v.note, v.history]) === JSON.stringify([r.note, r.history]);
  state.refresh = async () => { if (!same(await api('GET', `/v1/notes/${enc(id)}`))) await route(); };   // re-drawn only when the note changed
  const field = (name, value) => [h('dt', {}, name), h('dd', { 'data-field': name }, value)];
  return [h('h1', {}, `Note ${n.id}`),
    h('p', { class: 'sub' }, `${n.kind} note` + (n.owner ? ` of ${n.owner}` : '') + ` · item ${n.item} · ${when(n.timestamp)} · revision ${n.version} · read at memory version ${r.version}`),
    h('div', { class: 'note-grid' },
      h('div', {},
        h('div', { class: 'card' }, h('dl', { class: 'fields' },
          field('item', n.item), field('time', when(n.timestamp)), field('keywords', chips(n.keywords, 'kw')), field('tags', chips(n.tags, 'tag')),
          field('context', n.context || ''), field('content', h('pre', { class: 'content' }, n.content || '')))),
        h('h2', {}, `Revisions (${r.history.length})` + (r.others ? ` and ${r.others} by other users, counted only` : '')),
        r.history.length ? h('ol', { class: 'revisions', 'aria-label': 'revisions, oldest first' }, r.history.map(revision))
                         : h('p', { class: 'empty' }, 'never revised')),
      h('div', { class: 'note-links' }, h('h2', {}, `Links (${(n.links || []).length})`), (n.links || []).length ? linkGraph(n) : h('p', { class: 'empty' }, 'no links')))];
}

function pathsGraph(cand, paths, notes) {   // each path hop by hop, the relation text on each hop's arrow
  const mid = `arrow-${cand.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const marker = s('defs', {}, s('marker', { id: mid, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' }, s('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#8a93a8' })));
  const what = id => { const nt = notes[id] || {}; return isOther(id) ? `someone's note on ${nt.item || '?'}` : nt.kind === 'item' ? `item ${nt.item}` : `${nt.owner || ''}'s note on ${nt.item || '?'}`; };
  const edge = (p, k, draw) => { const rel = (p.relations || [])[k - 1] || ''; return s('g', { class: 'edge', 'data-from': p.nodes[k - 1], 'data-to': p.nodes[k], 'data-relation': rel }, draw(rel), s('title', {}, rel)); };
  const label = p => `${p.kind || 'path'}` + (p.score === undefined ? '' : ` · score ${p.score}`);
  let svg;
  if (narrow.matches) {   // a phone: each path top to bottom, the relation beside each arrow
    const W = 340, bw = 250, boxH = 40, hopH = 62;
    let y = 4; const parts = [];
    for (const p of paths) {
      const g = s('g', { class: 'path', 'data-candidate': cand, 'data-kind': p.kind || '', 'data-score': p.score }, s('text', { class: 'hop', x: 0, y: y + 12 }, label(p)));
      y += 20;
      p.nodes.forEach((id, k) => {
        if (k > 0) {
          g.append(edge(p, k, rel => [s('line', { x1: 24, y1: y, x2: 24, y2: y + hopH - 4, 'marker-end': `url(#${mid})` }),
                                     edgeText(36, y + 18, lineup(rel, 40, 3), 13)]));
          y += hopH;
        }
        g.append(nodeBox(id, 4, y, bw, boxH, what(id)));
        y += boxH;
      });
      y += 16; parts.push(g);
    }
    svg = s('svg', { width: W, height: y, viewBox: `0 0 ${W} ${y}`, role: 'img', 'aria-label': `evidence paths of ${cand}`, class: 'paths' }, marker, parts);
  } else {   // one row a path, one column a hop
    const bw = 196, gap = 220, lead = 100, rowH = 74, top = 22;
    const hops = Math.max(1, ...paths.map(p => p.nodes.length));
    const W = lead + hops * bw + (hops - 1) * gap + 10, H = top + paths.length * rowH + 6;
    svg = s('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `evidence paths of ${cand}`, class: 'paths' }, marker);
    for (let k = 0; k < hops; k++) svg.append(s('text', { class: 'hop', x: lead + k * (bw + gap), y: 13 }, k === 0 ? 'seed' : `hop ${k}`));
    paths.forEach((p, j) => {
      const y = top + j * rowH + 28;
      const g = s('g', { class: 'path', 'data-candidate': cand, 'data-kind': p.kind || '', 'data-score': p.score },
        s('text', { class: 'hop', x: 0, y: y - 2 }, p.kind || 'path'), s('text', { class: 'hop', x: 0, y: y + 12 }, p.score === undefined ? '' : `score ${p.score}`));
      p.nodes.forEach((id, k) => {
        const x = lead + k * (bw + gap);
        if (k > 0) {
          const x0 = x - gap, lines = lineup((p.relations || [])[k - 1] || '', 32, 3);
          g.append(edge(p, k, () => [s('line', { x1: x0 + 4, y1: y, x2: x - 4, y2: y, 'marker-end': `url(#${mid})` }),
                                     edgeText(x0 + 10, y - 6 - (lines.length - 1) * 13, lines, 13)]));
        }
        g.append(nodeBox(id, x, y - 20, bw, 40, what(id)));
      });
      svg.append(g);
    });
  }
  return h('div', { class: 'graph' }, svg);
}

function parseQuery(q) {   // c: candidates; q: the request; k: how many come back (without candidates: from the whole catalogue)
  const p = new URLSearchParams(q || ''), k = parseInt(p.get('k') || '', 10);
  return { c: (p.get('c') || '').split(/[\s,]+/).filter(Boolean), q: p.get('q') || '', k: k >= 1 && k <= 100 ? k : null };
}

async function rankView(user, query) {
  const { c, q, k } = parseQuery(query);
  const ids = h('textarea', { id: 'candidates', placeholder: 'item ids, separated by spaces, commas or lines', rows: 3 }, c.join(' '));
  const req = h('input', { type: 'text', id: 'request', value: q, placeholder: "the user's request (optional)" });
  const many = h('input', { type: 'number', id: 'k', min: 1, max: 100, value: k || 10, style: 'width:5rem' });
  const picks = h('div', { class: 'picks', role: 'group', 'aria-label': 'pick candidates' });
  const current = () => ids.value.split(/[\s,]+/).filter(Boolean);
  const togglePick = item => {
    const cs = current(); const k = cs.indexOf(item);
    if (k >= 0) cs.splice(k, 1); else cs.push(item);
    ids.value = cs.join(' '); markPicks();
  };
  const markPicks = () => { const cs = new Set(current()); for (const b of picks.children) b.setAttribute('aria-pressed', cs.has(b.dataset.item)); };
  ids.addEventListener('input', markPicks);
  try {   // items to pick from: those of the user's notes and of the item notes they link to
    const r = await api('GET', `/v1/users/${enc(user)}/notes`);
    const items = new Set();
    for (const n of r.notes) { items.add(n.item); for (const l of n.links || []) if (l.note.startsWith('item:')) items.add(l.note.slice(5)); }
    picks.append(...[...items].sort((a, b) => a.localeCompare(b, undefined, { numeric: true })).map(i => h('button', { type: 'button', 'data-item': i, 'aria-pressed': 'false', onclick: () => togglePick(i) }, i)));
    markPicks();
  } catch (e) { if (!(e instanceof ApiError)) throw e; picks.append(h('span', { class: 'empty' }, 'no items to pick from (paste ids)')); }
  const form = h('form', { class: 'card', onsubmit: ev => {   // no candidates: the memory proposes them from its whole catalogue
      ev.preventDefault();
      const p = new URLSearchParams(); const cs = current(), n = parseInt(many.value, 10);
      if (cs.length) p.set('c', cs.join(',')); if (req.value.trim()) p.set('q', req.value.trim()); if (n >= 1 && n <= 100) p.set('k', n);
      location.hash = `#/rank/${enc(user)}?${p}`; } },
    h('label', { for: 'candidates' }, 'candidates (none: from the whole catalogue)', ids), h('div', { class: 'sub' }, 'pick:'), picks,
    h('div', { class: 'inline', style: null }, h('label', { for: 'request', style: 'flex:1 1 16rem' }, 'request', req),
      h('label', { for: 'k' }, 'how many', many), h('button', { type: 'submit' }, 'Rank')));
  const out = [h('h1', {}, `Why this ranking, for ${user}`), form];
  if (c.length || k) out.push(...await ranked(user, c.length ? c : null, q, k));
  return out;
}

async function ranked(user, candidates, request, k) {
  const r = await api('POST', '/v1/recommend', { user, candidates, request: request || null, k: k || null });
  const top = Math.max(...r.scores.map(Math.abs), 1e-9);
  const from = r.sources || null;   // proposed by the memory: which of its sources named each item
  return [h('h2', {}, from ? `The first ${r.ranking.length} of the whole catalogue` : `Ranking of ${r.ranking.length} candidates`),
    h('p', { class: 'sub', id: 'ranked' }, `read at memory version ${r.version}` + (request ? ` · request: “${request}”` : '')),
    (r.facets || []).length ? h('div', { class: 'facets' }, h('span', { class: 'sub' }, 'preference facets: '), (r.facets || []).slice(0, 12).map(([f, w]) => h('span', { class: 'chip kw', title: `weight ${w}` }, f))) : null,
    h('ol', { class: 'ranking', id: 'ranking' }, r.ranking.map((cand, k) => {
      const paths = r.paths[cand] || [];
      return h('li', { 'data-candidate': cand, 'data-rank': k + 1, 'data-score': r.scores[k] },
        h('details', { open: k < 3 },
          h('summary', {}, h('span', { class: 'rank' }, k + 1), h('span', { class: 'item' }, cand), h('span', { class: 'scorebar', 'aria-hidden': 'true' }, h('span', { style: `width:${Math.max(0, r.scores[k]) / top * 100}%` })),
            h('span', { class: 'score' }, r.scores[k].toFixed(4)), h('span', { class: 'npaths' }, `${paths.length} path${paths.length === 1 ? '' : 's'}`),
            from ? h('span', { class: 'sources', title: 'the memory\'s sources that proposed it' }, (from[cand] || []).map(s => h('span', { class: 'chip src' }, s))) : null),
          paths.length ? pathsGraph(cand, paths, r.notes) : h('p', { class: 'empty' }, 'no evidence path')));
    }))];
}

// ---- routing: #/user/ID, #/note/ID, #/rank/ID?c=...&q=... ----
async function route(next) {
  if (next !== undefined && next !== location.hash) { location.hash = next; return; }
  const main = document.getElementById('main');
  const [path, query] = location.hash.replace(/^#\/?/, '').split('?');
  const [view, ...rest] = path.split('/');
  const arg = decodeURIComponent(rest.join('/'));
  const token = state.route = {};
  state.refresh = null; say(null);
  main.setAttribute('aria-busy', 'true');
  let kids;
  try {
    if (state.key === null) kids = keyView(location.hash);
    else if (view === 'user' && arg) { drawNav(arg, 'user'); kids = await userView(arg); }
    else if (view === 'note' && arg) { drawNav(arg.startsWith('u:') ? arg.split(':')[1] : localStorage.getItem(USER_STORE), 'note'); kids = await noteView(arg); }
    else if (view === 'rank' && arg) { drawNav(arg, 'rank'); kids = await rankView(arg, query); }
    else { drawNav(localStorage.getItem(USER_STORE), ''); kids = homeView(); }
  } catch (e) {
    if (token !== state.route) return;
    state.refresh = null; say(e);
    if (e instanceof ApiError && e.status === 401) { kids = keyView(location.hash); }
    else kids = [h('p', { class: 'empty' }, 'Nothing to show: the service refused (see above).'), h('p', {}, h('a', { href: '#/' }, 'choose another user'))];
  }
  if (token !== state.route) return;   // another route started meanwhile
  main.replaceChildren(...kids);
  main.setAttribute('aria-busy', 'false');
  main.dataset.view = view || 'home';
  main.dataset.drawn = Number(main.dataset.drawn || 0) + 1;   // views drawn so far (a test waits for the next one)
  if (view === 'user' || view === 'rank') localStorage.setItem(USER_STORE, arg);
  document.title = `AtomRec inspector · ${view || 'home'}${arg ? ' ' + arg : ''}`;
}

document.addEventListener('keydown', ev => {   // '/' focuses the search, as on many sites
  const t = ev.target.tagName;
  if (ev.key === '/' && t !== 'INPUT' && t !== 'TEXTAREA') { const f = document.getElementById('search'); if (f) { ev.preventDefault(); f.focus(); } }
});
narrow.addEventListener('change', () => route());   // graphs re-drawn for the new width
window.addEventListener('hashchange', () => { route().then(() => document.getElementById('main').focus({ preventScroll: true })); });
drawKey(); route(); poll();
