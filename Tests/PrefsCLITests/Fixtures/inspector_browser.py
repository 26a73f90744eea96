"""Drives headless Chromium (Debian's chromium) through the DevTools protocol against the
inspector of a running `prefs serve` (websocket-client from PyPI):

  inspector_browser.py URL SCREENSHOT.png SEARCH FLAG CONTEXT_JSON

Loads the page, types SEARCH into the key search, opens the first key found, evaluates FLAG
for CONTEXT_JSON through the form, saves a screenshot, and prints one JSON object: the keys
listed, the key pane's title and value, and the form's value, variant and reason. Then waits
for a line on stdin (the caller has changed that key meanwhile) and prints the key's value as
the page shows it once it changed, with the seconds that took.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket


def main():
    url, screenshot, search, flag, context = sys.argv[1:6]
    profile = tempfile.mkdtemp(prefix="prefs-chromium-")
    browser = subprocess.Popen(
        [shutil.which("chromium") or "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--remote-debugging-port=0", "--user-data-dir=" + profile, "--window-size=1280,1000", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not os.path.exists(port_file) or not open(port_file).read().strip():
            if time.time() > deadline:
                raise SystemExit("chromium did not open its debugging port")
            time.sleep(0.1)
        port = open(port_file).read().split()[0]
        pages = json.load(urllib.request.urlopen("http://127.0.0.1:%s/json/list" % port))
        page = next(p for p in pages if p.get("type") == "page")
        ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30)
        counter = [0]

        def call(method, **params):
            counter[0] += 1
            ws.send(json.dumps({"id": counter[0], "method": method, "params": params}))
            while True:
                message = json.loads(ws.recv())
                if message.get("id") == counter[0]:
                    if "error" in message:
                        raise SystemExit("%s: %s" % (method, message["error"]))
                    return message.get("result", {})

        def js(expression):
            result = call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
            if "exceptionDetails" in result:
                raise SystemExit("script failed: %s" % result["exceptionDetails"])
            return result["result"].get("value")

        def wait_for(expression, what):
            deadline = time.time() + 15
            while time.time() < deadline:
                if js(expression):
                    return
                time.sleep(0.1)
            raise SystemExit("timed out waiting for " + what)

        call("Page.enable")
        call("Page.navigate", url=url)
        wait_for("document.readyState === 'complete' && document.querySelectorAll('#eval-flag option').length > 0", "the page")
        # Type into the search field as a user does (focus, text, input event).
        js("const s = document.getElementById('search'); s.focus(); s.value = %s; s.dispatchEvent(new Event('input')); true" % json.dumps(search))
        wait_for("[...document.querySelectorAll('#keys button')].length > 0 && [...document.querySelectorAll('#keys button')].every(b => b.textContent.toLowerCase().includes(%s))" % json.dumps(search.lower()), "the search")
        keys = js("[...document.querySelectorAll('#keys button')].map(b => b.textContent)")
        js("document.querySelector('#keys button').click(); true")
        wait_for("document.getElementById('key-value') !== null", "the key pane")
        key_title = js("document.getElementById('key-title').textContent")
        key_value = js("document.getElementById('key-value').textContent")
        js("document.getElementById('eval-flag').value = %s; document.getElementById('eval-context').value = %s; true" % (json.dumps(flag), json.dumps(context)))
        js("document.querySelector('#eval-form button[type=submit]').click(); true")
        wait_for("document.getElementById('eval-variant') !== null || document.getElementById('eval-error') !== null", "the evaluation")
        result = js("({value: document.getElementById('eval-value')?.textContent, variant: document.getElementById('eval-variant')?.textContent, reason: document.getElementById('eval-reason')?.textContent, error: document.getElementById('eval-error')?.textContent})")
        js("document.getElementById('eval-result').scrollIntoView(); true")
        shot = call("Page.captureScreenshot", format="png")
        with open(screenshot, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        print(json.dumps({"keys": keys, "keyTitle": key_title, "keyValue": key_value, **result}, ensure_ascii=False), flush=True)
        # Live updates: the caller changes the open key with the CLI, then writes a line; the
        # page must show the new value without a reload (server-sent events).
        sys.stdin.readline()
        start = time.time()
        wait_for("document.getElementById('key-value') && document.getElementById('key-value').textContent !== %s" % json.dumps(key_value), "the live update")
        print(json.dumps({"liveValue": js("document.getElementById('key-value').textContent"), "seconds": round(time.time() - start, 3)}), flush=True)
        ws.close()
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
        shutil.rmtree(profile, ignore_errors=True)


main()
