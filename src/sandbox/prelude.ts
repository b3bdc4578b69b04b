// The JavaScript that runs inside QuickJS before a function: the globals it may use ($args, $vars,
// $flow, fetch, setTimeout, console, require) over the two host functions the bridge defines
// (__hostFetch, __hostTimer), and __finish, which turns the function's outcome into text or a
// failure record the host reads.
export const FILENAME = "tool.js";

/** The body placed in an async function; the prefix stays on the body's first line, so line numbers match. */
export const wrap = (body: string) => `__finish((async function () {${body}\n})())`;

// Runs inside QuickJS before the function: the globals it may use.
export const PRELUDE =
  String.raw`(() => {
  const input = JSON.parse(globalThis.__input);
  delete globalThis.__input;
  const hostFetch = globalThis.__hostFetch;
  const hostTimer = globalThis.__hostTimer;
  delete globalThis.__hostFetch;
  delete globalThis.__hostTimer;
  for (const name of input.declared) globalThis["$" + name] = undefined;
  for (const [name, value] of Object.entries(input.args)) globalThis["$" + name] = value;
  globalThis.$vars = input.vars;
  globalThis.$flow = input.flow;

  let nextId = 1;
  const pending = new Map();
  const timers = new Map();

  const plainHeaders = (h) => {
    const out = {};
    if (!h) return out;
    if (typeof h.forEach === "function" && !Array.isArray(h)) h.forEach((v, k) => { out[String(k)] = String(v); });
    else if (Array.isArray(h)) for (const [k, v] of h) out[String(k)] = String(v);
    else for (const k of Object.keys(h)) out[k] = String(h[k]);
    return out;
  };

  const response = (r) => {
    const headers = new Map(r.headers.map(([k, v]) => [String(k).toLowerCase(), v]));
    let used = false;
    const read = () => {
      if (used) return Promise.reject(new TypeError("Body has already been used"));
      used = true;
      return Promise.resolve(r.body);
    };
    return {
      ok: r.status >= 200 && r.status < 300,
      status: r.status,
      statusText: r.statusText,
      url: r.url,
      redirected: r.redirected,
      headers: {
        get: (name) => (headers.has(String(name).toLowerCase()) ? headers.get(String(name).toLowerCase()) : null),
        has: (name) => headers.has(String(name).toLowerCase()),
        forEach: (fn) => headers.forEach((v, k) => fn(v, k)),
        entries: () => headers.entries(),
        keys: () => headers.keys(),
        values: () => headers.values(),
      },
      get bodyUsed() { return used; },
      text: () => read(),
      json: () => read().then((t) => JSON.parse(t)),
    };
  };

  const fetch = function fetch(resource, init) {
    return new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, {
        resolve: (payload) => resolve(response(JSON.parse(payload))),
        reject: (message) => reject(new TypeError(message)),
      });
      const url = typeof resource === "string" ? resource : resource && typeof resource.url === "string" ? resource.url : String(resource);
      const o = init || {};
      let body = o.body;
      if (body !== undefined && body !== null && typeof body !== "string") ` +
  String.raw`body = typeof body === "object" ? JSON.stringify(body) : String(body);
      hostFetch(id, url, JSON.stringify({ method: o.method, headers: plainHeaders(o.headers), body: body === null ? undefined : body }));
    });
  };
  fetch.default = fetch;
  globalThis.fetch = fetch;

  globalThis.setTimeout = (fn, ms, ...rest) => {
    const id = nextId++;
    timers.set(id, () => { if (typeof fn === "function") fn(...rest); });
    hostTimer(id, Number(ms) || 0);
    return id;
  };
  globalThis.clearTimeout = (id) => { timers.delete(id); };

  globalThis.__settle = (id, ok, payload) => {
    const timer = timers.get(id);
    if (timer) {
      timers.delete(id);
      try { timer(); } catch (e) {}
      return;
    }
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if (ok) p.resolve(payload); else p.reject(payload);
  };

  const ignore = () => {};
  globalThis.console = { log: ignore, info: ignore, warn: ignore, error: ignore, debug: ignore, trace: ignore };

  const MODULES = { "node-fetch": fetch, "cross-fetch": fetch, "isomorphic-fetch": fetch };
  globalThis.require = (name) => {
    if (Object.prototype.hasOwnProperty.call(MODULES, name)) return MODULES[name];
    throw new Error("require('" + name + "') is not available in this sandbox; fetch is (also as require('node-fetch'))");
  };

  const text = (value) => {
    if (typeof value === "string") return value;
    if (value === undefined) return "";
    try {
      const json = JSON.stringify(value);
      return json === undefined ? String(value) : json;
    } catch (e) {
      return String(value);
    }
  };
  const failure = (e) => {
    if (e instanceof Error || (e && typeof e === "object" && "message" in e)) {
      const name = e.name && e.name !== "Error" ? String(e.name) + ": " : "";
      return { __sandboxFailure: true, message: name + String(e.message) };
    }
    return { __sandboxFailure: true, message: text(e) };
  };
  globalThis.__finish = (promise) => promise.then(text, (e) => { throw failure(e); });
})();`;
