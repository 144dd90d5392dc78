// The idforge dashboard: polls GET /v1/status once a second and shows this node's lease, clock
// and mark, IDs per second per scheme (from the differences of the cumulative counts), the
// sequence tags' segment buffers and recent events; an inspector decodes one ID with
// GET /v1/inspect/{id}. Plain DOM and fetch, no build step; every server value is set as text,
// never as HTML. A bearer token, when the service needs one, stays in sessionStorage (this tab).

const POLL_MS = 1000;
const HISTORY = 60; // chart points, one per poll
const TOKEN_KEY = 'idforge.token';

const $ = (id) => document.getElementById(id);
let last = null; // the latest status
let receivedAt = 0; // performance.now() when it arrived
const history = []; // one Map(series -> IDs per second) per poll, oldest first
const seriesOrder = []; // series names by first appearance (their colours)
const seen = new Map(); // tag -> { first, swaps }: to notice a buffer swap

/** An element with attributes and children (nodes or text). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

/** The child of `parent` with data-key `key`, made by `make` the first time. */
function keyed(parent, key, make) {
  for (const child of parent.children) if (child.dataset.key === key) return child;
  const child = make();
  child.dataset.key = key;
  parent.append(child);
  return child;
}

const utc = (ms) => `${new Date(ms).toISOString().slice(11, 23)} UTC`;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const count = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const token = () => sessionStorage.getItem(TOKEN_KEY) ?? '';
const headers = () => (token() === '' ? {} : { authorization: `Bearer ${token()}` });
/** The server's clock now: its last nowMs plus the time since that arrived. */
const serverNow = () => last.nowMs + (performance.now() - receivedAt);

/** A bar with role meter; {@link setMeter} fills it. */
const meter = (label) =>
  el('div', { class: 'meter', role: 'meter', 'aria-label': label }, el('span'));

function setMeter(m, value, max) {
  const v = Math.max(0, Math.min(value, max));
  m.setAttribute('aria-valuemin', '0');
  m.setAttribute('aria-valuemax', String(max));
  m.setAttribute('aria-valuenow', String(Math.round(v)));
  m.firstChild.style.width = max > 0 ? `${(100 * v) / max}%` : '0';
}

/** The value of a <dl> row, found by its label or made; `cls` classes the value. */
function row(dl, label, value, cls = '') {
  const dd = keyed(dl, label, () => el('div', {}, el('dt', {}, label), el('dd'))).lastChild;
  dd.textContent = value;
  dd.className = cls;
  return dd;
}

function renderNodes(s) {
  for (const box of [$('nodes'), $('clocks')]) box.querySelector('.placeholder')?.remove();
  for (const n of s.nodes) {
    const card = keyed($('nodes'), n.layout, () => el('dl', { class: 'node' }));
    row(card, 'layout', n.layout);
    row(card, 'worker ID', n.workerId === null ? 'none' : String(n.workerId), 'worker-id big');
    const lease = keyed(card, 'lease', () => {
      const dd = el(
        'dd',
        {},
        el('span', { class: 'lease-remaining big' }),
        meter('lease time left'),
      );
      return el('div', {}, el('dt', {}, 'lease expires in'), dd);
    });
    lease.dataset.deadline = n.deadlineMs ?? '';
    lease.dataset.ttl = n.ttlMs;
    row(card, 'ready', n.ready ? 'yes' : `no: ${n.reason}`, n.ready ? 'ok' : 'bad');

    const c = keyed($('clocks'), n.layout, () => el('dl', { class: 'clock' }));
    // A mark of 0 (or none) bounds nothing: no ID was ever issued under this worker ID (a
    // clean stop that issued nothing puts the mark back where it was).
    const noMark = n.markMs === null || n.markMs <= 0;
    const past = noMark ? null : s.nowMs - n.markMs;
    const ahead = n.reservedMs === null ? null : n.reservedMs - s.nowMs;
    row(c, 'layout', n.layout);
    row(c, 'server clock', utc(s.nowMs));
    row(c, 'mark at lease', noMark ? 'none (nothing issued under this worker ID)' : utc(n.markMs));
    row(c, 'clock past mark', past === null ? '—' : seconds(past), past < 0 ? 'bad' : 'ok');
    row(c, 'reserved up to', n.reservedMs === null ? 'none' : utc(n.reservedMs));
    row(c, 'reserved ahead', ahead === null ? '—' : seconds(ahead), ahead < 0 ? 'bad' : 'ok');
  }
}

/** Counts the leases down between polls. */
function tick() {
  if (last === null) return;
  for (const lease of document.querySelectorAll('[data-deadline]')) {
    const text = lease.querySelector('.lease-remaining');
    const ttl = Number(lease.dataset.ttl);
    const ms = lease.dataset.deadline === '' ? 0 : Number(lease.dataset.deadline) - serverNow();
    if (lease.dataset.deadline === '') text.textContent = 'no lease';
    else text.textContent = ms > 0 ? seconds(ms) : `expired ${seconds(-ms)} ago`;
    text.classList.toggle('bad', ms < ttl / 3);
    setMeter(lease.querySelector('.meter'), ms, ttl);
  }
}

/** Cumulative counts by series: IDs issued per scheme, numbers served per sequence tag. */
function totals(s) {
  const out = new Map(Object.entries(s.issued));
  for (const q of s.sequences) out.set(`seq ${q.tag}`, Number(q.served));
  return out;
}

function recordRates(prev, s) {
  const dt = (s.nowMs - prev.nowMs) / 1000;
  if (dt <= 0) return;
  const before = totals(prev);
  const rates = new Map();
  for (const [name, n] of totals(s)) {
    if (!seriesOrder.includes(name)) seriesOrder.push(name);
    rates.set(name, Math.max(0, (n - (before.get(name) ?? 0)) / dt));
  }
  history.push(rates);
  if (history.length > HISTORY) history.shift();
}

function renderRates() {
  const now = history.at(-1) ?? new Map();
  if (seriesOrder.length > 0) $('rate-legend').querySelector('.placeholder')?.remove();
  seriesOrder.forEach((name, i) => {
    const li = keyed($('rate-legend'), name, () =>
      el(
        'li',
        { 'data-series': name },
        el('span', { class: `swatch c${i % 6}` }),
        `${name} `,
        el('span', { class: 'rate' }),
        ' /s',
      ),
    );
    li.querySelector('.rate').textContent = count(now.get(name) ?? 0);
  });
  drawChart();
}

/** The chart: one line per series over the last HISTORY polls, in the scheme's colours. */
function drawChart() {
  const canvas = $('rate-chart');
  const dpr = window.devicePixelRatio || 1;
  const [w, h] = [canvas.clientWidth, canvas.clientHeight];
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(h * dpr);
  const g = canvas.getContext('2d');
  const css = getComputedStyle(canvas);
  g.scale(dpr, dpr);
  let max = 10;
  for (const rates of history) for (const v of rates.values()) max = Math.max(max, v);
  const unit = 10 ** Math.floor(Math.log10(max));
  const top = unit * Math.ceil(max / unit); // a round number just above the peak
  const left = 64;
  const x = (i) => left + ((w - left - 8) * (i + HISTORY - history.length)) / (HISTORY - 1);
  const y = (v) => h - 18 - ((h - 28) * v) / top;
  g.font = `12px ${css.fontFamily}`;
  g.fillStyle = css.getPropertyValue('--muted');
  g.strokeStyle = css.getPropertyValue('--grid');
  for (const v of [0, top / 2, top]) {
    g.fillText(count(v), 4, y(v) + 4);
    g.beginPath();
    g.moveTo(left, y(v));
    g.lineTo(w - 8, y(v));
    g.stroke();
  }
  g.fillText('last minute →', left, h - 3);
  g.lineWidth = 2;
  seriesOrder.forEach((name, i) => {
    g.strokeStyle = css.getPropertyValue(`--c${i % 6}`);
    g.beginPath();
    for (const [j, rates] of history.entries()) g.lineTo(x(j), y(rates.get(name) ?? 0));
    g.stroke();
  });
}

/** One segment buffer's bar: `filled` of `size` numbers left. */
function bar(box, key, label, filled, size, state) {
  const b = keyed(box, key, () =>
    el('div', { class: `buffer ${key}` }, el('span', { class: 'label' }), meter('')),
  );
  b.firstChild.textContent = label;
  b.dataset.state = state;
  b.lastChild.setAttribute('aria-label', `${key} segment: ${label}`);
  setMeter(b.lastChild, filled, size);
}

function renderSequences(s) {
  if (s.sequences.length > 0) $('sequences').querySelector('.placeholder')?.remove();
  for (const q of s.sequences) {
    const tag = keyed($('sequences'), q.tag, () =>
      el(
        'article',
        { class: 'tag', 'data-tag': q.tag },
        el('h3', {}, q.tag),
        el('p', { class: 'muted' }),
      ),
    );
    const was = seen.get(q.tag) ?? { first: null, swaps: 0 };
    const first = q.current?.first ?? null;
    if (was.first !== null && first !== was.first) {
      was.swaps += 1;
      tag.classList.remove('swapped');
      void tag.offsetWidth; // restarts the highlight animation
      tag.classList.add('swapped');
    }
    was.first = first;
    seen.set(q.tag, was);
    const loading = q.loading ? ' · loading the next segment…' : '';
    tag.querySelector('p').textContent =
      `step ${count(q.step)} · served ${BigInt(q.served).toLocaleString('en-US')} · swaps seen ${was.swaps}${loading}`;
    const c = q.current;
    if (c === null) bar(tag, 'current', 'current: none', 0, 1, 'empty');
    else {
      const size = BigInt(c.last) - BigInt(c.first) + 1n;
      const rest = BigInt(c.last) - BigInt(c.next) + 1n;
      const left = rest < 0n ? 0n : rest;
      const label = `current ${c.first}–${c.last}: ${left.toLocaleString('en-US')} left`;
      bar(tag, 'current', label, Number(left), Number(size), 'draining');
    }
    const n = q.next;
    const state = n !== null ? 'ready' : q.loading ? 'loading' : 'empty';
    const label = n === null ? `next: ${state}` : `next ${n.first}–${n.last}: ready`;
    bar(tag, 'next', label, n === null ? 0 : 1, 1, state);
  }
}

function renderEvents(s) {
  const list = $('events');
  const key = `${s.events.length}:${s.events.at(-1)?.atMs}:${s.events.at(-1)?.message}`;
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  const item = (e) =>
    el(
      'li',
      { class: `level-${e.level}` },
      el('time', { datetime: new Date(e.atMs).toISOString() }, utc(e.atMs)),
      el('span', { class: 'kind' }, e.kind),
      el('span', { class: 'level' }, e.level),
      el('span', { class: 'message' }, e.message),
    );
  list.replaceChildren(...s.events.map(item).reverse());
}

/** The readiness badge (a live region: changed only when its text changes). */
function setBadge(text, ok) {
  const badge = $('readiness');
  if (badge.textContent !== text) badge.textContent = text;
  badge.className = `badge ${ok ? 'ok' : 'bad'}`;
}

/** Greys out what the last status showed while the service does not answer. */
const setStale = (stale) => document.querySelector('main').classList.toggle('stale', stale);

/** With --processes N: one row per process (its pid, worker IDs, state and IDs issued). */
function renderProcesses(s) {
  const section = $('processes-section');
  section.hidden = s.processes === undefined;
  if (s.processes === undefined) return;
  const tbody = $('processes').querySelector('tbody');
  for (const p of s.processes) {
    const tr = keyed(tbody, String(p.index), () =>
      el('tr', {}, el('td'), el('td'), el('td'), el('td'), el('td')),
    );
    const bad = p.nodes.filter((n) => !n.ready);
    const state = !p.answered
      ? 'no answer'
      : bad.length === 0
        ? 'ready'
        : `not ready: ${bad.map((n) => n.reason).join('; ')}`;
    const issued = Object.values(p.issued ?? {}).reduce((a, b) => a + b, 0);
    const cells = [
      String(p.index),
      String(p.pid),
      p.nodes.map((n) => `${n.layout} ${n.workerId}`).join(', '),
      state,
      count(issued),
    ];
    cells.forEach((text, i) => {
      tr.children[i].textContent = text;
    });
    tr.className = state === 'ready' ? 'ok' : 'bad';
  }
}

function renderHeader(s) {
  const procs = s.processes === undefined ? '' : ` · ${s.processes.length} processes`;
  $('node-name').textContent =
    `${s.service.host} · pid ${s.service.pid}${procs} · v${s.service.version}`;
  const bad = [
    ...s.nodes.filter((n) => !n.ready).map((n) => ({ what: n.layout, reason: n.reason })),
    ...(s.processes ?? [])
      .filter((p) => !p.answered || p.nodes.some((n) => !n.ready))
      .map((p) => ({ what: `process ${p.index}`, reason: p.answered ? 'not ready' : 'no answer' })),
  ];
  const reasons = bad.map((n) => `${n.what}: ${n.reason}`).join('; ');
  setBadge(bad.length === 0 ? 'ready' : `not ready: ${reasons}`, bad.length === 0);
  const seq = s.service.sequences === null ? '' : ` · sequences ${s.service.sequences}`;
  $('poll-state').textContent =
    `updated ${utc(s.nowMs)} · up ${seconds(s.nowMs - s.service.startedAtMs)} · store ${s.service.store}${seq}`;
}

/** The status, or null when the service did not answer (then the badge says why). */
async function fetchStatus() {
  try {
    const res = await fetch('/v1/status', {
      headers: headers(),
      cache: 'no-store',
      signal: AbortSignal.timeout(5000),
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(body.error?.message ?? `HTTP ${res.status}`);
    return body;
  } catch (error) {
    setBadge(`status unreachable: ${error.message}; showing the last status`, false);
    setStale(true);
    return null;
  }
}

/** One poll, then the next a second later. A rendering bug is thrown, not shown as an outage. */
async function poll() {
  try {
    const s = await fetchStatus();
    if (s === null) return;
    setStale(false);
    if (last !== null) recordRates(last, s);
    last = s;
    receivedAt = performance.now();
    renderHeader(s);
    renderProcesses(s);
    renderNodes(s);
    renderRates();
    renderSequences(s);
    renderEvents(s);
    tick();
  } finally {
    setTimeout(poll, POLL_MS);
  }
}

const DECODED = 'scheme layout version variant special value hex timestamp unixMs'.split(' ');

async function inspect(event) {
  event.preventDefault();
  const out = $('inspect-out');
  const id = $('inspect-id').value.trim();
  if (id === '') return;
  out.replaceChildren(el('p', { class: 'muted' }, 'decoding…'));
  const fail = (message) =>
    out.replaceChildren(el('p', { class: 'error', role: 'alert' }, message));
  try {
    const res = await fetch(`/v1/inspect/${encodeURIComponent(id)}`, {
      headers: headers(),
      cache: 'no-store',
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) {
      const e = body.error ?? { code: `HTTP ${res.status}`, message: res.statusText };
      return fail(`${e.message} (${e.code})`);
    }
    const dl = el('dl', { class: 'decoded' });
    for (const k of DECODED) if (body[k] !== undefined) row(dl, k, String(body[k]), `field-${k}`);
    for (const [k, v] of Object.entries(body.fields ?? {})) row(dl, k, String(v), `field-${k}`);
    out.replaceChildren(dl);
  } catch (error) {
    fail(`the service did not answer: ${error.message}`);
  }
}

$('token').value = token();
$('token').addEventListener('input', (e) => {
  const v = e.target.value.trim();
  if (v === '') sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, v);
});
$('inspect-form').addEventListener('submit', inspect);
window.addEventListener('resize', drawChart);
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', drawChart);
setInterval(tick, 100);
poll();
