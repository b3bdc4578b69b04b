// The QuickJS sandbox on its own: results, arguments, limits, fetch under the outbound policy.
import { afterEach, describe, expect, it, vi } from "vitest";
import { RunAborted } from "../../src/lib/run-control";
import { SandboxError, checkFunctionSyntax, runSandboxed, toolTimeoutMs } from "../../src/sandbox";
import { standinUrl } from "./helpers";

const env = { OUTBOUND_ALLOW: "" };
const run = (body: string, extra: Partial<Parameters<typeof runSandboxed>[1]> = {}) => runSandboxed(body, { env, ...extra });

async function failure(p: Promise<unknown>): Promise<SandboxError> {
  const err = await p.then(
    (v) => {
      throw new Error(`expected a failure, got ${JSON.stringify(v)}`);
    },
    (e) => e,
  );
  expect(err).toBeInstanceOf(SandboxError);
  return err as SandboxError;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("results and inputs", () => {
  it("answers strings as they are, other values as JSON, undefined as an empty string", async () => {
    expect(await run(`return "plain"`)).toBe("plain");
    expect(await run(`return { a: 1, b: [true, null] }`)).toBe('{"a":1,"b":[true,null]}');
    expect(await run(`return 42`)).toBe("42");
    expect(await run(`const x = 1;`)).toBe("");
    expect(await run(`return null`)).toBe("null");
  });

  it("gives the arguments as $name variables, and $vars and $flow", async () => {
    const out = await run(`return [$city, $days + 1, $vars.unit, $flow.sessionId, typeof $missing].join("|")`, {
      args: { city: "Paris", days: 2 },
      vars: { unit: "metric" },
      flow: { sessionId: "s-1", chatflowId: "c-1" },
    });
    expect(out).toBe("Paris|3|metric|s-1|undefined");
  });

  it("may be async: await, promises, setTimeout", async () => {
    const out = await run(`
      const wait = (ms) => new Promise((r) => setTimeout(r, ms));
      await wait(10);
      const values = await Promise.all([1, 2, 3].map(async (n) => { await wait(1); return n * 2; }));
      return values;`);
    expect(out).toBe("[2,4,6]");
  });

  it("has none of the worker's globals", async () => {
    expect(
      await run(
        `return [typeof caches, typeof Response, typeof WebAssembly, typeof process, typeof __hostFetch, typeof __input].join(",")`,
      ),
    ).toBe("undefined,undefined,undefined,undefined,undefined,undefined");
  });

  it("require: node-fetch is fetch, other modules are refused", async () => {
    expect(await run(`const fetch = require("node-fetch"); return typeof fetch`)).toBe("function");
    const err = await failure(run(`const fs = require("fs"); return fs.readFileSync("/etc/passwd")`));
    expect(err.message).toContain("require('fs') is not available");
  });
});

describe("failures", () => {
  it("a thrown error is its message", async () => {
    const err = await failure(run(`throw new Error("the weather service is down")`));
    expect(err).toMatchObject({ reason: "thrown", message: "the weather service is down" });
    expect((await failure(run(`null.x`))).message).toMatch(/^TypeError: /);
    expect((await failure(run(`await Promise.resolve(); throw "plain string"`))).message).toBe("plain string");
  });

  it("a loop forever is stopped by the time limit, and the next call works", async () => {
    const t0 = Date.now();
    const err = await failure(run(`while (true) {}`, { timeoutMs: 300 }));
    expect(err.reason).toBe("timeout");
    expect(err.message).toMatch(/^The function (ran|computed for) longer than its time limit of 300 ms .*stopped$/);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(await run(`return 1 + 1`)).toBe("2");
  });

  it("a loop after an await, and a loop that catches its errors, are stopped too", async () => {
    expect((await failure(run(`await null; for (;;) {}`, { timeoutMs: 300 }))).reason).toBe("timeout");
    expect((await failure(run(`for (;;) { try { while (true) {} } catch (e) {} }`, { timeoutMs: 300 }))).reason).toBe("timeout");
  });

  it("where the clock does not move while code runs (Workers), an instruction budget stops the loop", async () => {
    const frozen = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(frozen);
    const err = await failure(run(`while (true) {}`, { timeoutMs: 100 }));
    expect(err).toMatchObject({
      reason: "timeout",
      message: "The function computed for longer than its time limit of 100 ms allows (its instruction budget) and was stopped",
    });
  });

  it("time spent awaiting counts: a timer longer than the limit is stopped", async () => {
    const err = await failure(run(`await new Promise((r) => setTimeout(r, 10000)); return "late"`, { timeoutMs: 200 }));
    expect(err.reason).toBe("timeout");
  });

  it("TOOL_TIMEOUT_MS sets the default limit (5 s without it)", () => {
    expect(toolTimeoutMs({})).toBe(5000);
    expect(toolTimeoutMs({ TOOL_TIMEOUT_MS: "1500" })).toBe(1500);
    expect(toolTimeoutMs({ TOOL_TIMEOUT_MS: "nope" })).toBe(5000);
    expect(toolTimeoutMs({ TOOL_TIMEOUT_MS: "999999" })).toBe(60000);
  });

  it("memory limit", async () => {
    // Small objects fill the run's limit or the engine's 64 MB, whichever first (the slice raised so
    // that neither is pre-empted by it); both are named.
    const memory = await failure(
      run(`const a = []; for (;;) a.push({ i: a.length, s: "x" + a.length });`, { timeoutMs: 20_000, sliceMs: 20_000 }),
    );
    expect(memory).toMatchObject({
      reason: "memory",
      message: expect.stringMatching(/^The function used more than (its memory limit of 32 MB|the sandbox's memory limit of 64 MB)$/),
    });
    expect(await run(`return "still fine"`)).toBe("still fine");
  }, 30_000);

  it("stack limit: QuickJS's own check, and native recursion that reaches the worker's stack", async () => {
    const stack = await failure(run(`const f = (n) => f(n + 1) + 1; return f(0);`));
    expect(stack.reason).toBe("stack");
    const native = await failure(run(`return JSON.parse("[".repeat(100000) + "]".repeat(100000)).length`));
    expect(native.reason).toBe("stack");
    expect(await run(`return "still fine"`)).toBe("still fine");
    expect(await checkFunctionSyntax(`return ${"[".repeat(100000)}${"]".repeat(100000)}`)).toMatch(/nested too deeply|stack overflow/);
    expect(await run(`return "fine again"`)).toBe("fine again");
  });

  it("at most 1000 timers pending at once", async () => {
    const err = await failure(run(`for (let i = 0; i < 2000; i++) setTimeout(() => {}, 10); return "ok"`));
    expect(err.message).toBe("a function may have at most 1000 timers pending");
    expect(await run(`for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 1)); return "ok"`)).toBe("ok");
  });

  it("a promise that can never settle is reported, not waited for", async () => {
    const err = await failure(run(`await new Promise(() => {}); return "never"`));
    expect(err.reason).toBe("stalled");
  });

  it("a body that does not parse: SyntaxError with its line", async () => {
    const err = await failure(run(`const a = 1;\nreturn (a +;`));
    expect(err.reason).toBe("syntax");
    expect(err.message).toMatch(/^The function does not parse: SyntaxError: .+ \(line 2\)$/);
    expect(await checkFunctionSyntax(`const a = 1;\nconst b = {;\nreturn a`)).toMatch(/^SyntaxError: .+\(line 2\)$/);
    expect(await checkFunctionSyntax(`const r = await fetch("https://example.com"); return r.text()`)).toBeUndefined();
    expect(await checkFunctionSyntax(`return 1`)).toBeUndefined();
  });

  it("the run's abort signal stops the function", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(run(`await new Promise((r) => setTimeout(r, 3000)); return 1`, { signal: controller.signal })).rejects.toBeInstanceOf(
      RunAborted,
    );
  });
});

describe("fetch", () => {
  it("refuses loopback, private, link-local and metadata addresses in any notation, and non-http schemes", async () => {
    for (const url of [
      "http://127.0.0.1:8787/",
      "http://localhost/",
      "http://2130706433/",
      "http://0x7f.0.0.1/",
      "http://127.1/",
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://169.254.169.254/latest/meta-data/",
      "http://10.0.0.8/",
      "http://192.168.1.1/",
      "http://metadata.google.internal/",
      "http://127.0.0.1.nip.io/",
      "file:///etc/passwd",
    ]) {
      const out = await run(`try { await fetch(${JSON.stringify(url)}); return "fetched"; } catch (e) { return e.message; }`);
      expect(out, url).toMatch(/^Outbound request refused: /);
    }
  });

  it("uncaught, a refused fetch fails the function with the refusal", async () => {
    const spy = vi.spyOn(globalThis, "fetch");
    const err = await failure(run(`const r = await fetch("http://127.0.0.1/admin"); return r.text()`));
    expect(err.message).toBe(
      "TypeError: Outbound request refused: 127.0.0.1 is a loopback address (127.0.0.0/8) (OUTBOUND_ALLOW can list hosts that may be reached)",
    );
    expect(spy).not.toHaveBeenCalled();
  });

  it("fetches an allowed public host through the worker's fetch: method, headers, body, status, json", async () => {
    const spy = vi
      .spyOn(globalThis, "fetch")
      .mockImplementation(
        async () =>
          new Response(JSON.stringify({ temp: 21 }), { status: 201, headers: { "content-type": "application/json", "x-test": "yes" } }),
      );
    const out = await run(
      `
      const fetch = require("node-fetch");
      const r = await fetch("https://api.weather.example/v1?city=" + encodeURIComponent($city), {
        method: "POST", headers: { Authorization: "Bearer " + $vars.key }, body: { city: $city },
      });
      const data = await r.json();
      return { ok: r.ok, status: r.status, type: r.headers.get("Content-Type"), test: r.headers.get("x-test"), temp: data.temp };`,
      { args: { city: "São Paulo" }, vars: { key: "k1" } },
    );
    expect(JSON.parse(out)).toEqual({ ok: true, status: 201, type: "application/json", test: "yes", temp: 21 });
    expect(spy).toHaveBeenCalledTimes(1);
    const [url, init] = spy.mock.calls[0] as [string, RequestInit];
    expect(url).toBe("https://api.weather.example/v1?city=S%C3%A3o%20Paulo");
    expect(init).toMatchObject({
      method: "POST",
      body: '{"city":"São Paulo"}',
      redirect: "manual",
      headers: { Authorization: "Bearer k1" },
    });
  });

  it("a redirect to a private address is refused", async () => {
    vi.spyOn(globalThis, "fetch").mockImplementation(
      async () => new Response(null, { status: 302, headers: { location: "http://10.1.2.3/secret" } }),
    );
    const out = await run(`try { await fetch("https://public.example/"); } catch (e) { return e.message; }`);
    expect(out).toMatch(/^Outbound request refused: 10\.1\.2\.3 is a private address/);
  });

  it("a slow fetch is cut by the time limit, and its request is aborted", async () => {
    let signal: AbortSignal | undefined;
    vi.spyOn(globalThis, "fetch").mockImplementation((_url, init) => {
      signal = (init as RequestInit).signal ?? undefined;
      return new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    });
    const err = await failure(run(`await fetch("https://slow.example/"); return "done"`, { timeoutMs: 200 }));
    expect(err.reason).toBe("timeout");
    expect(signal?.aborted).toBe(true);
  });

  it("OUTBOUND_ALLOW lets a listed host through (here the local stand-in)", async () => {
    const host = new URL(standinUrl()).host;
    const body = `const r = await fetch(${JSON.stringify(`${standinUrl()}/requests?contains=nothing-matches-this`)}); return r.status + " " + (await r.text());`;
    expect((await failure(run(body))).message).toContain("Outbound request refused");
    expect(await runSandboxed(body, { env: { OUTBOUND_ALLOW: `example.com, ${host}` } })).toBe("200 []");
  });
});
