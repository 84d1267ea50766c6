// Drives Debian's headless Chromium over the Chrome DevTools Protocol for tests/integration/status_page_test.cpp,
// line by line from stdin, like tests/mcp/driver.mjs does for MCP. Real page loads, real mouse clicks, real
// screenshots; the test owns the scenario.
//
// env:    CHROMIUM (the browser's path; default: the first of chromium, chromium-browser, google-chrome on PATH)
// stdin:  one JSON command per line, {"seq":N,"op":...}
//   navigate {url}               load the page and wait for its load event; answers the final location.href
//   eval {expr}                  evaluate (promises awaited); answers the value (JSON-serializable)
//   wait {expr, timeout_ms?}     evaluate every 50 ms until the value is truthy; answers it, or an error at timeout
//   click {selector}             a real left click (mouse pressed + released) at the element's centre
//   screenshot {path}            a PNG of the viewport
//   close                        close the browser and exit
// stdout: {"ready":true,"version"} once, then {"seq":N,"ok":true,"result"} or {"seq":N,"ok":false,"error":"…"}.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, accessSync, constants } from "node:fs";
import { tmpdir } from "node:os";
import { join, delimiter } from "node:path";
import { createInterface } from "node:readline";
import WebSocket from "ws";

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

function findBrowser() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  for (const dir of (process.env.PATH || "").split(delimiter)) {
    for (const name of ["chromium", "chromium-browser", "google-chrome"]) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return join(dir, name);
      } catch {}
    }
  }
  throw new Error("no Chromium on PATH (apt-get install chromium)");
}

const profile = mkdtempSync(join(tmpdir(), "agentworks-cdp-"));
const browser = spawn(findBrowser(), [
  "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
  "--disable-extensions", "--disable-background-networking", "--window-size=1280,900",
  "--remote-debugging-port=0", `--user-data-dir=${profile}`, "about:blank",
], { stdio: ["ignore", "ignore", "pipe"] });

function cleanup() {
  try { browser.kill("SIGKILL"); } catch {}
  try { rmSync(profile, { recursive: true, force: true }); } catch {}
}
process.on("exit", cleanup);

const endpoint = await new Promise((resolve, reject) => {
  let text = "";
  const timer = setTimeout(() => reject(new Error("Chromium printed no DevTools address in 60 s:\n" + text)), 60000);
  browser.stderr.on("data", (chunk) => {
    text += chunk;
    process.stderr.write(chunk);
    const m = text.match(/DevTools listening on (ws:\/\/[^\s]+)/);
    if (m) { clearTimeout(timer); resolve(m[1]); }
  });
  browser.on("exit", (code) => reject(new Error(`Chromium exited (${code}) before listening:\n${text}`)));
});

const httpBase = endpoint.replace(/^ws:/, "http:").replace(/\/devtools\/browser\/.*$/, "");
const targets = await (await fetch(httpBase + "/json/list")).json();
const page = targets.find((t) => t.type === "page");
if (!page) throw new Error("Chromium has no page target");
const version = await (await fetch(httpBase + "/json/version")).json();

const ws = new WebSocket(page.webSocketDebuggerUrl, { perMessageDeflate: false });
await new Promise((resolve, reject) => { ws.once("open", resolve); ws.once("error", reject); });
let nextId = 1;
const waiting = new Map();
const listeners = new Set();
ws.on("message", (data) => {
  const msg = JSON.parse(data.toString());
  if (msg.id && waiting.has(msg.id)) {
    const { resolve, reject } = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (msg.error) reject(new Error(`${msg.error.message} (${msg.error.code})`));
    else resolve(msg.result);
  } else if (msg.method) {
    for (const l of listeners) l(msg);
  }
});
function cdp(method, params = {}) {
  const id = nextId++;
  ws.send(JSON.stringify({ id, method, params }));
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}
function nextEvent(method, timeoutMs) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { listeners.delete(l); reject(new Error(`no ${method} in ${timeoutMs} ms`)); },
                             timeoutMs);
    const l = (msg) => {
      if (msg.method !== method) return;
      clearTimeout(timer);
      listeners.delete(l);
      resolve(msg.params);
    };
    listeners.add(l);
  });
}

await cdp("Page.enable");
await cdp("Runtime.enable");

async function evaluate(expr) {
  const r = await cdp("Runtime.evaluate", { expression: expr, awaitPromise: true, returnByValue: true });
  if (r.exceptionDetails) {
    const d = r.exceptionDetails;
    throw new Error((d.exception && d.exception.description) || d.text);
  }
  return r.result.value;
}

async function handle(cmd) {
  switch (cmd.op) {
    case "navigate": {
      const loaded = nextEvent("Page.loadEventFired", 30000);
      const r = await cdp("Page.navigate", { url: cmd.url });
      if (r.errorText) throw new Error(r.errorText);
      await loaded;
      return await evaluate("location.href");
    }
    case "eval":
      return await evaluate(cmd.expr);
    case "wait": {
      const deadline = Date.now() + (cmd.timeout_ms ?? 15000);
      let last;
      for (;;) {
        try {
          last = await evaluate(cmd.expr);
          if (last) return last;
        } catch (e) {
          last = e.message;
        }
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${cmd.expr} (last: ${JSON.stringify(last)})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    case "click": {
      const box = await evaluate(`(() => { const e = document.querySelector(${JSON.stringify(cmd.selector)});
        if (!e) return null; e.scrollIntoView({block: "center"}); const r = e.getBoundingClientRect();
        return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()`);
      if (!box) throw new Error(`no element matches ${cmd.selector}`);
      for (const type of ["mouseMoved", "mousePressed", "mouseReleased"]) {
        await cdp("Input.dispatchMouseEvent", { type, x: box.x, y: box.y, button: "left", clickCount: 1 });
      }
      return true;
    }
    case "screenshot": {
      const r = await cdp("Page.captureScreenshot", { format: "png" });
      writeFileSync(cmd.path, Buffer.from(r.data, "base64"));
      return cmd.path;
    }
    case "close":
      try { await cdp("Browser.close"); } catch {}
      cleanup();
      process.exit(0);
    default:
      throw new Error(`unknown op ${cmd.op}`);
  }
}

emit({ ready: true, version: version.Browser });
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  let cmd;
  try {
    cmd = JSON.parse(line);
  } catch (e) {
    emit({ seq: null, ok: false, error: "not JSON: " + e.message });
    continue;
  }
  try {
    emit({ seq: cmd.seq, ok: true, result: await handle(cmd) });
  } catch (e) {
    emit({ seq: cmd.seq, ok: false, error: e.message });
  }
}
cleanup();
process.exit(0);
