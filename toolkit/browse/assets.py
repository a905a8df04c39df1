"""The page's style and its one script. The script only reveals what the page already holds (the
replay bodies, filters over messages); it fetches nothing and never turns a transcript's text into
markup: it writes text with ``textContent`` only."""

from __future__ import annotations

import base64
import hashlib

STYLE = """
.tkb{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d232a;max-width:1100px}
.tkb *{box-sizing:border-box}
.tkb pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.25em 0;font:12.5px/1.4 ui-monospace,Menlo,Consolas,monospace;
 background:#f6f8fa;border-radius:4px;padding:.4em .6em;max-height:40em;overflow:auto}
.tkb .session{border-top:3px solid #445;margin:1.5em 0;padding-top:.5em}
.tkb .session>h2{font-size:1.15em;margin:.2em 0}
.tkb .facts{color:#555;font-size:.9em}
.tkb .facts span{margin-right:1em}
.tkb .msg{border-left:4px solid #ccc;margin:.6em 0;padding:.3em .7em;background:#fff}
.tkb .msg.role-user{border-color:#3b7dd8}.tkb .msg.role-assistant{border-color:#2e9b5f}
.tkb .msg.role-system{border-color:#999}.tkb .msg.role-tool{border-color:#c58b00}
.tkb .msg.offpath{opacity:.75;border-left-style:dashed}
.tkb .msg.sidechain{margin-left:1.5em}
.tkb .msg.focus{outline:3px solid #f0b400}
.tkb .msg>header{font-size:.85em;color:#555;display:flex;flex-wrap:wrap;gap:.2em .8em;align-items:baseline}
.tkb .msg>header .role{font-weight:600;color:#1d232a;text-transform:uppercase;letter-spacing:.03em}
.tkb .tag{background:#eef;border-radius:3px;padding:0 .35em}
.tkb .usage{font-size:.82em;color:#333;background:#f3f7f1;border-radius:3px;padding:.15em .5em;margin:.2em 0}
.tkb .usage .est{color:#6a4b00}
.tkb .call{border:1px solid #d8dee4;border-radius:4px;margin:.35em 0;padding:.25em .5em}
.tkb .call-head{font-weight:600}
.tkb .error{color:#b3261e;font-weight:600}
.tkb .result-ref{font-size:.85em;color:#555}
.tkb .event{margin:.5em 0;padding:.3em .6em;border:1px dashed #a66;background:#fff7f5;font-size:.9em}
.tkb .event.kind-compaction,.tkb .event.kind-summary{border-color:#7a4fbf;background:#f7f3ff}
.tkb .bookkeeping{font-size:.8em;color:#777;margin:.2em 0}
.tkb details>summary{cursor:pointer;color:#345}
.tkb img.inline{max-width:100%;max-height:480px;border:1px solid #ddd;display:block;margin:.3em 0}
.tkb .controls{position:sticky;top:0;background:#fffe;padding:.4em 0;z-index:1;display:flex;gap:1em;flex-wrap:wrap;
 font-size:.9em;border-bottom:1px solid #ddd}
.tkb .hidden{display:none}
.tkb .subagent{background:#eef6ff;border-radius:3px;padding:.1em .4em;font-size:.9em}
.tkb table.index{border-collapse:collapse;font-size:.85em}
.tkb table.index td,.tkb table.index th{border-bottom:1px solid #e4e4e4;padding:.15em .5em;text-align:left}
"""

SCRIPT = r"""
(function () {
  for (const root of document.querySelectorAll('.tkb[data-tkb]:not([data-tkb-ready])')) {
    root.setAttribute('data-tkb-ready', '1');
    const data = root.querySelector('script.tkb-replay');
    const sets = data ? JSON.parse(data.textContent) : {};
    const choice = root.querySelector('select.tkb-wire');
    const body = function (set, pos) {
      const row = set.layout[pos];
      if (!row) return null;
      if (row.length === 1) return set.pieces[row[0]];
      const inner = [];
      for (let i = 2; i < row.length; i += 2) {
        for (let k = 0; k < row[i + 1]; k++) inner.push(set.pieces[row[i] + k]);
      }
      return set.pieces[row[0]] + '[' + inner.join(',') + ']' + set.pieces[row[1]];
    };
    const fill = function (details) {
      const pre = details.querySelector('pre');
      const note = details.querySelector('.replay-notes');
      const chosen = sets[choice ? choice.value : Object.keys(sets)[0]] || {};
      const set = chosen[details.closest('section.session').id];
      const pos = details.getAttribute('data-pos');
      const pretty = root.querySelector('input.tkb-pretty');
      let text = set ? body(set, pos) : null;
      if (text === null) { pre.textContent = '(no body for this message)'; return; }
      const size = new TextEncoder().encode(text).length;
      if (pretty && pretty.checked) text = JSON.stringify(JSON.parse(text), null, 1);
      pre.textContent = text;
      const notes = (set.notes[pos] || []).join('; ');
      note.textContent = set.wire + ' · ' + set.mode + (set.vision ? '' : ' · no vision') + ' · ' +
        size + ' bytes' + (notes ? ' · notes: ' + notes : '');
    };
    root.addEventListener('toggle', function (ev) {
      const d = ev.target;
      if (d.classList && d.classList.contains('replay') && d.open) fill(d);
    }, true);
    const refill = function () { for (const d of root.querySelectorAll('details.replay[open]')) fill(d); };
    if (choice) choice.addEventListener('change', refill);
    const pretty = root.querySelector('input.tkb-pretty');
    if (pretty) pretty.addEventListener('change', refill);
    const query = root.querySelector('input.tkb-query');
    const roles = [...root.querySelectorAll('input.tkb-role')];
    const filter = function () {
      const q = query ? query.value.toLowerCase() : '';
      const shown = new Set(roles.filter(r => r.checked).map(r => r.value));
      for (const m of root.querySelectorAll('article.msg')) {
        const ok = shown.has(m.getAttribute('data-role')) && (!q || m.textContent.toLowerCase().includes(q));
        m.classList.toggle('hidden', !ok);
      }
    };
    if (query) query.addEventListener('input', filter);
    for (const r of roles) r.addEventListener('change', filter);
  }
})();
"""


def script_hash() -> str:
    """The Content-Security-Policy source that lets exactly this script run and no other inline one."""
    digest = hashlib.sha256(SCRIPT.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def style_hash() -> str:
    digest = hashlib.sha256(STYLE.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"
