import { createHash } from 'node:crypto';

/**
 * The page's only script: the status / level / resource filters. It reads nothing but the data-*
 * attributes the writer put on the elements (no report data inside the script), so the page's
 * Content-Security-Policy can allow exactly this script by its hash and nothing else.
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
