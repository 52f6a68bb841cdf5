import { createHash } from 'node:crypto';

/**
 * The page's only script: the status / level / resource filters, and the failed checks' exchanges
 * shown when a failure is opened. It reads nothing but the data-* attributes the writer put on the
 * elements and the JSON data block (html-failures.ts), whose texts it sets as textContent (never as
 * markup); no report data is inside the script, so the page's Content-Security-Policy can allow
 * exactly this script by its hash and nothing else.
 *
 * Filters: each button toggles a value of its group; an empty group means "all". With levels
 * chosen, an endpoint's status is recomputed over the checks of those levels (fail > pass >
 * inconclusive > skipped > untested), so "fail + MUST" shows the endpoints with a failing MUST check.
 */
export const FILTER_SCRIPT = `
(function () {
  var active = { status: new Set(), level: new Set(), tag: new Set() };
  var LEVELS = ['MUST', 'SHOULD', 'INFO'];
  function allows(set, value) { return set.size === 0 || set.has(value); }
  function rowStatus(row) {
    if (active.level.size === 0) return row.getAttribute('data-status');
    var seen = [];
    active.level.forEach(function (l) { seen.push(row.getAttribute('data-s-' + l.toLowerCase())); });
    if (seen.indexOf('fail') >= 0) return 'fail';
    if (seen.indexOf('pass') >= 0) return 'pass';
    if (seen.indexOf('inconclusive') >= 0) return 'inconclusive';
    if (seen.indexOf('skipped') >= 0) return 'skipped';
    return 'untested';
  }
  function apply() {
    var shown = 0;
    var rows = document.querySelectorAll('tr.ep');
    var visibleTags = new Set();
    rows.forEach(function (row) {
      var visible = allows(active.tag, row.getAttribute('data-tag')) && allows(active.status, rowStatus(row));
      row.hidden = !visible;
      if (visible) { shown++; visibleTags.add(row.getAttribute('data-tag')); }
      var detail = document.getElementById('d-' + row.getAttribute('data-key'));
      if (detail) detail.hidden = !visible;
    });
    document.querySelectorAll('tr.group').forEach(function (g) { g.hidden = !visibleTags.has(g.getAttribute('data-tag')); });
    document.querySelectorAll('.failure').forEach(function (f) {
      f.hidden = !(allows(active.tag, f.getAttribute('data-tag')) && allows(active.level, f.getAttribute('data-level')) && allows(active.status, 'fail'));
    });
    document.querySelectorAll('li.ck').forEach(function (li) {
      li.hidden = !(allows(active.level, li.getAttribute('data-level')) && allows(active.status, li.getAttribute('data-status')));
    });
    var matrix = document.getElementById('matrix');
    LEVELS.forEach(function (l) { matrix.classList.toggle('hide-' + l, active.level.size > 0 && !active.level.has(l)); });
    document.getElementById('shown').textContent = shown + ' of ' + rows.length + ' endpoints shown';
    var visibleFailures = document.querySelectorAll('.failure:not([hidden])').length;
    var fc = document.getElementById('failure-count');
    if (fc) fc.textContent = String(visibleFailures);
  }
  document.querySelectorAll('button[data-filter]').forEach(function (b) {
    b.addEventListener('click', function () {
      var set = active[b.getAttribute('data-filter')];
      var value = b.getAttribute('data-value');
      if (set.has(value)) set.delete(value); else set.add(value);
      b.setAttribute('aria-pressed', String(set.has(value)));
      apply();
    });
  });
  var data = null;
  function pageData() {
    if (data === null) {
      var el = document.getElementById('page-data');
      data = el ? JSON.parse(el.textContent) : { texts: [], failures: {}, checks: {} };
    }
    return data;
  }
  function text(i) { return i >= 0 ? pageData().texts[i] : undefined; }
  function pretty(body) {
    if (!/^\\s*[\\[{]/.test(body)) return body;
    try { return JSON.stringify(JSON.parse(body), null, 2); } catch (e) { return body; }
  }
  function el(tag, className, content) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (content !== undefined) node.textContent = content;
    return node;
  }
  function block(parent, label, content) {
    parent.appendChild(el('div', 'lv', label));
    parent.appendChild(el('pre', '', content));
  }
  function once(node) {
    if (node.getAttribute('data-filled') === '1') return false;
    node.setAttribute('data-filled', '1');
    return true;
  }
  // A failure's request, response and curl command, the first time it opens.
  function fillFailure(details) {
    if (!once(details)) return;
    var x = pageData().failures[details.id];
    var body = details.querySelector('.x');
    if (!x || !body) return;
    if (x[0] >= 0) block(body, 'request', text(x[0]));
    if (x[1] >= 0) block(body, 'response' + (x[3] >= 0 ? ' (' + x[3] + ' ms)' : ''), text(x[1]) + (x[2] >= 0 ? '\\n\\n' + pretty(text(x[2])) : ''));
    if (x[4] >= 0) block(body, 'reproduce with curl (set MQSIM_TOKEN to a token from POST /api/v1/login)', text(x[4]));
  }
  var STATUS = ['pass', 'fail', 'inconclusive', 'skipped'];
  var LEVEL = ['MUST', 'SHOULD', 'INFO'];
  // An endpoint's checks, the first time its section opens.
  function fillEndpoint(details) {
    if (!once(details)) return;
    var list = details.querySelector('ul.checks');
    var rows = pageData().checks[details.id] || [];
    if (!list) return;
    rows.forEach(function (r) {
      var status = STATUS[r[0]];
      var level = LEVEL[r[1]];
      var li = el('li', 'ck');
      li.setAttribute('data-status', status);
      li.setAttribute('data-level', level);
      li.appendChild(el('span', 'st ' + status, status));
      li.appendChild(document.createTextNode(' '));
      li.appendChild(el('code', '', text(r[2])));
      li.appendChild(document.createTextNode(' '));
      var lv = el('span', 'lv', level + ' · ');
      var cite = el('a', '', text(r[3]));
      cite.setAttribute('href', '#a-' + text(r[3]));
      lv.appendChild(cite);
      li.appendChild(lv);
      li.appendChild(document.createTextNode(' — ' + text(r[4])));
      if (r[5]) {
        li.appendChild(document.createTextNode(' '));
        var link = el('a', '', 'details');
        link.setAttribute('href', '#' + r[5]);
        li.appendChild(link);
      }
      list.appendChild(li);
    });
    apply();
  }
  function fill(details) {
    if (details.classList.contains('failure')) fillFailure(details);
    else if (details.classList.contains('detail')) fillEndpoint(details);
  }
  document.querySelectorAll('details.failure, details.detail').forEach(function (d) {
    d.addEventListener('toggle', function () { if (d.open) fill(d); });
    if (d.open) fill(d);
  });
  document.getElementById('open-all').addEventListener('click', function () {
    document.querySelectorAll('details.detail').forEach(function (d) { d.open = true; fill(d); });
  });
  // A link to a failure (or into a closed section) opens it and what holds it.
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    for (var at = target; at; at = at.parentElement) {
      if (at.tagName === 'DETAILS') { at.open = true; fill(at); }
    }
    if (target) target.scrollIntoView();
  }
  window.addEventListener('hashchange', openTarget);
  if (location.hash) openTarget();
  document.getElementById('reset').addEventListener('click', function () {
    active.status.clear(); active.level.clear(); active.tag.clear();
    document.querySelectorAll('button[data-filter]').forEach(function (b) { b.setAttribute('aria-pressed', 'false'); });
    apply();
  });
  apply();
})();
`;

/** `'sha256-…'` of the script, for the page's Content-Security-Policy. */
export const FILTER_SCRIPT_HASH = `'sha256-${createHash('sha256').update(FILTER_SCRIPT, 'utf8').digest('base64')}'`;
