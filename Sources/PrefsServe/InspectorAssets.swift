/// The web inspector's page, style sheet and script, served from the binary (no CDN).
enum InspectorAssets {
    /// The asset at a path, with its content type.
    static func asset(_ path: String) -> (type: String, text: String)? {
        switch path {
        case "/", "/index.html": ("text/html; charset=utf-8", html)
        case "/inspector.css": ("text/css; charset=utf-8", css)
        case "/inspector.js": ("text/javascript; charset=utf-8", script)
        default: nil
        }
    }

    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>prefs inspector</title>
        <link rel="stylesheet" href="/inspector.css">
        <script src="/inspector.js" defer></script>
        </head>
        <body>
        <a class="skip" href="#main">Skip to content</a>
        <header>
          <h1>prefs inspector</h1>
          <p id="store" class="muted"></p>
          <p id="live" class="muted" role="status" aria-live="polite">connecting…</p>
        </header>
        <form id="token-form" hidden>
          <label for="token">Bearer token</label>
          <input id="token" type="password" autocomplete="off">
          <button type="submit">Use token</button>
        </form>
        <main id="main">
          <section aria-labelledby="keys-title">
            <h2 id="keys-title">Keys</h2>
            <div class="row">
              <label for="domain">Domain</label>
              <select id="domain"><option value="">all domains</option></select>
              <label for="search">Search keys</label>
              <input id="search" type="search" placeholder="domain/key contains…">
            </div>
            <ul id="keys" class="list" aria-label="Keys"></ul>
            <p id="keys-more" class="muted" hidden>Showing the first 500; refine the search.</p>
            <div id="key-detail" aria-live="polite"></div>
          </section>
          <section aria-labelledby="flags-title">
            <h2 id="flags-title">Flags</h2>
            <div id="flags"></div>
            <h3 id="eval-title">Evaluate a flag</h3>
            <form id="eval-form" aria-labelledby="eval-title">
              <label for="eval-flag">Flag</label>
              <select id="eval-flag" required></select>
              <label for="eval-key">Targeting key</label>
              <input id="eval-key" type="text" autocomplete="off">
              <label for="eval-context">Context (JSON object)</label>
              <textarea id="eval-context" rows="4" spellcheck="false">{}</textarea>
              <button type="submit">Evaluate</button>
            </form>
            <div id="eval-result" role="status" aria-live="polite"></div>
          </section>
        </main>
        </body>
        </html>

        """

    static let css = """
        :root { font-family: system-ui, sans-serif; color: #1b1b1b; background: #fafafa; }
        body { margin: 0 auto; max-width: 72rem; padding: 1rem; }
        header h1 { margin: 0; font-size: 1.5rem; }
        .muted { color: #555; margin: .2rem 0; }
        main { display: grid; grid-template-columns: repeat(auto-fit, minmax(22rem, 1fr)); gap: 1.5rem; }
        section { background: #fff; border: 1px solid #ccc; border-radius: 6px; padding: 1rem; }
        .row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
        label { font-weight: 600; }
        form#eval-form { display: grid; gap: .3rem; }
        input, select, textarea, button { font: inherit; padding: .3rem; }
        textarea, pre { font-family: ui-monospace, monospace; }
        pre { background: #f2f2f2; padding: .5rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
        .list { list-style: none; padding: 0; max-height: 20rem; overflow-y: auto; }
        .list button { width: 100%; text-align: left; background: none; border: 0; border-bottom: 1px solid #eee; cursor: pointer; }
        .list button:hover, .list button[aria-current="true"] { background: #e8f0fe; }
        :focus-visible { outline: 3px solid #1a5fd0; outline-offset: 1px; }
        #flags { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; font-size: .9rem; }
        th, td { text-align: left; border-bottom: 1px solid #ddd; padding: .2rem .4rem; vertical-align: top; }
        .state-DISABLED { color: #a00; }
        .skip { position: absolute; left: -999px; }
        .skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; }
        .error { color: #a00; }

        """

    static let script = """
        'use strict';
        const $ = (id) => document.getElementById(id);
        let token = sessionStorage.getItem('prefs-token') || '';
        // prefs serve prints the inspector's address with its token after #: keep it for this
        // tab and take it out of the address bar (and of history).
        if (location.hash.startsWith('#token=')) {
          token = decodeURIComponent(location.hash.slice(7));
          sessionStorage.setItem('prefs-token', token);
          history.replaceState(null, '', location.pathname + location.search);
        }
        let current = null;
        function headers(extra) {
          const h = Object.assign({}, extra || {});
          if (token) h['Authorization'] = 'Bearer ' + token;
          return h;
        }
        async function api(path, init) {
          const response = await fetch(path, Object.assign({ headers: headers(init && init.headers) }, init || {}, { headers: headers(init && init.headers) }));
          if (response.status === 401) { $('token-form').hidden = false; throw new Error('a bearer token is needed'); }
          return response;
        }
        function el(tag, text, attrs) {
          const node = document.createElement(tag);
          if (text !== undefined && text !== null) node.textContent = text;
          for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
          return node;
        }
        function pretty(value) { return JSON.stringify(value, null, 2); }
        async function loadSummary() {
          const s = await (await api('/api/summary')).json();
          $('store').textContent = 'store ' + s.store + ' · prefs ' + s.version + ' · ' + s.flags + ' flags';
          const select = $('domain');
          const chosen = select.value;
          select.replaceChildren(el('option', 'all domains', { value: '' }));
          for (const d of s.domains) select.append(el('option', d.name + ' (' + d.keys + ')', { value: d.name }));
          select.value = chosen;
        }
        async function loadKeys() {
          const q = new URLSearchParams({ domain: $('domain').value, q: $('search').value });
          const data = await (await api('/api/keys?' + q)).json();
          const list = $('keys');
          list.replaceChildren();
          for (const k of data.keys) {
            const button = el('button', k.domain + '/' + k.key + ' = ' + k.preview, { type: 'button', 'data-domain': k.domain, 'data-key': k.key });
            if (current && current.domain === k.domain && current.key === k.key) button.setAttribute('aria-current', 'true');
            button.addEventListener('click', () => { current = { domain: k.domain, key: k.key }; loadKey(); loadKeys(); });
            const item = el('li'); item.append(button); list.append(item);
          }
          if (!data.keys.length) list.append(el('li', 'no keys match', { class: 'muted' }));
          $('keys-more').hidden = !data.more;
        }
        async function loadKey() {
          const pane = $('key-detail');
          if (!current) { pane.replaceChildren(); return; }
          const response = await api('/api/key?' + new URLSearchParams(current));
          const data = await response.json();
          pane.replaceChildren();
          if (!response.ok) { pane.append(el('p', data.errorDetails, { class: 'error' })); return; }
          pane.append(el('h3', data.domain + '/' + data.key, { id: 'key-title' }));
          pane.append(el('pre', pretty(data.value), { id: 'key-value', 'aria-label': 'value' }));
          pane.append(el('p', 'updated ' + data.updatedAt + (data.expiresAt ? ' · expires ' + data.expiresAt : ''), { class: 'muted' }));
          const table = el('table', null, { 'aria-label': 'history' });
          const head = el('tr'); for (const h of ['seq', 'at', 'op', 'new', 'actor']) head.append(el('th', h, { scope: 'col' }));
          table.append(head);
          for (const r of data.history) {
            const row = el('tr'); for (const v of [r.seq, r.at, r.op, r.new === null ? '—' : r.new, r.actor]) row.append(el('td', String(v)));
            table.append(row);
          }
          pane.append(el('h4', 'History'), table);
        }
        async function loadFlags() {
          const data = await (await api('/api/flags')).json();
          const box = $('flags');
          const table = el('table', null, { 'aria-label': 'flags' });
          const head = el('tr'); for (const h of ['flag', 'state', 'variants', 'default', 'targeting']) head.append(el('th', h, { scope: 'col' }));
          table.append(head);
          const select = $('eval-flag'); const chosen = select.value;
          select.replaceChildren();
          for (const f of data.flags) {
            select.append(el('option', f.key, { value: f.key }));
            const row = el('tr', null, { 'data-flag': f.key });
            row.append(el('td', f.key));
            if (f.static) { row.append(el('td', 'STATIC'), el('td', JSON.stringify(f.value)), el('td', ''), el('td', '')); table.append(row); continue; }
            row.append(el('td', f.state, { class: 'state-' + f.state }));
            row.append(el('td', Object.entries(f.variants).map(([k, v]) => k + '=' + JSON.stringify(v)).join(', ')));
            row.append(el('td', f.defaultVariant === null ? '—' : f.defaultVariant));
            const cell = el('td');
            if (f.targeting) { const d = el('details'); d.append(el('summary', 'rule'), el('pre', pretty(f.targeting))); cell.append(d); }
            row.append(cell);
            table.append(row);
          }
          if (chosen) select.value = chosen;
          box.replaceChildren(table);
        }
        async function evaluate(event) {
          event.preventDefault();
          const out = $('eval-result');
          let context;
          try { context = JSON.parse($('eval-context').value || '{}'); } catch (e) { out.replaceChildren(el('p', 'The context is not JSON: ' + e.message, { class: 'error' })); return; }
          if ($('eval-key').value) context.targetingKey = $('eval-key').value;
          const key = $('eval-flag').value;
          const response = await api('/ofrep/v1/evaluate/flags/' + encodeURIComponent(key), {
            method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ context })
          });
          const r = await response.json();
          out.replaceChildren();
          if (!response.ok) { out.append(el('p', r.errorCode + ': ' + r.errorDetails, { class: 'error', id: 'eval-error' })); return; }
          const dl = el('dl');
          const rows = [['value', 'value' in r ? JSON.stringify(r.value) : '(the code default)', 'eval-value'], ['variant', r.variant === null ? '—' : r.variant, 'eval-variant'], ['reason', r.reason, 'eval-reason']];
          for (const [name, text, id] of rows) dl.append(el('dt', name), el('dd', text, { id }));
          out.append(dl);
          if (Object.keys(r.metadata || {}).length) out.append(el('pre', pretty(r.metadata)));
        }
        async function listen() {
          for (;;) {
            try {
              const response = await api('/api/events');
              $('live').textContent = 'live: updates as the store changes';
              const reader = response.body.getReader(); const decoder = new TextDecoder(); let buffer = '';
              for (;;) {
                const { value, done } = await reader.read();
                if (done) break;
                buffer += decoder.decode(value, { stream: true });
                let end;
                while ((end = buffer.indexOf('\\n\\n')) >= 0) {
                  const block = buffer.slice(0, end); buffer = buffer.slice(end + 2);
                  if (block.startsWith('event: change')) { refresh(); $('live').textContent = 'live: updated ' + new Date().toLocaleTimeString(); }
                }
              }
            } catch (e) { $('live').textContent = 'disconnected: ' + e.message; }
            await new Promise((r) => setTimeout(r, 2000));
          }
        }
        function refresh() { return Promise.all([loadSummary(), loadKeys(), loadFlags(), loadKey()]).catch((e) => { $('live').textContent = e.message; }); }
        let timer = null;
        window.addEventListener('DOMContentLoaded', () => {
          $('search').addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(loadKeys, 150); });
          $('domain').addEventListener('change', loadKeys);
          $('eval-form').addEventListener('submit', evaluate);
          $('token-form').addEventListener('submit', (e) => { e.preventDefault(); token = $('token').value; sessionStorage.setItem('prefs-token', token); $('token-form').hidden = true; refresh(); });
          refresh();
          listen();
        });

        """
}
