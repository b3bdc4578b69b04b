// Issue 28, item 4: a model endpoint that redirected to another origin received the credential
// (Authorization went along). The one outbound rule (src/lib/outbound/redirects.ts) now follows
// redirects by hand: at most 5 hops, each through the policy, never https → http, and a hop to
// another origin carries only harmless headers. Here the rule itself, against two loopback origins
// (test/standin/redirector.mjs); redirect-families.test.ts drives every provider family through it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { OutboundRefused, RedirectRefused, endpointFetch, outboundFetch } from "../../src/lib/outbound";
import { call, expectError, json } from "../helpers";
import { framesOf, openAICredential, saveChain } from "./helpers";
import { hops, hopsOf, leaksTo, originA, originB, planId, via } from "./redirect-helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

const LOCAL = { field: "test endpoint", env: { ENVIRONMENT: "test" } };
const ALLOW_LOOPBACK = { OUTBOUND_ALLOW: "127.0.0.1" };

// Every way a provider or an owner sends a secret, and the headers a request needs wherever it goes.
const SECRET_HEADERS = {
  Authorization: "Bearer sk-redirect-secret",
  "Proxy-Authorization": "Basic cHJveHk6c2VjcmV0",
  Cookie: "session=secret-cookie",
  "api-key": "azure-secret",
  "x-api-key": "anthropic-secret",
  "x-goog-api-key": "gemini-secret",
  "Api-Key": "pinecone-secret",
  "X-Subscription-Token": "brave-secret",
  "X-Owner-Typed-Token": "mcp-secret",
  "X-Edgeflow-Signature": "sha256=abc",
};
const HARMLESS = {
  "content-type": "application/json",
  accept: "application/json",
  "user-agent": "edgeflow",
  "anthropic-version": "2023-06-01",
};
const lower = (o: Record<string, string>) => Object.keys(o).map((k) => k.toLowerCase());

const post = (body = '{"q":"hello"}') => ({ method: "POST", headers: { ...SECRET_HEADERS, ...HARMLESS }, body });

describe("the outbound rule's redirects, against two loopback origins", () => {
  it("a same-origin redirect (absolute or relative) keeps every header, the method and the body", async () => {
    for (const plan of ["307a", "308r"]) {
      const id = planId();
      const res = await endpointFetch(`${via("openai", id, plan)}/echo`, post(), LOCAL);
      expect(res.status).toBe(200);
      const echoed = (await res.json()) as { method: string; headers: Record<string, string>; body: string };
      expect(echoed.method).toBe("POST");
      expect(echoed.body).toBe('{"q":"hello"}');
      for (const name of lower(SECRET_HEADERS)) expect(echoed.headers[name], name).toBeDefined();
      expect((await hopsOf(id)).map((h) => [h.server, h.plan])).toEqual([
        ["a", plan],
        ["a", "-"],
      ]);
    }
  });

  it("a 307 to another origin carries the method, the body and harmless headers, never a credential", async () => {
    const id = planId();
    const res = await endpointFetch(`${via("openai", id, "307b")}/echo`, post(), LOCAL);
    expect(res.status).toBe(200);
    const [first, second] = await hopsOf(id);
    expect(first).toMatchObject({ server: "a", headers: { authorization: "Bearer sk-redirect-secret", "x-api-key": "anthropic-secret" } });
    expect(second).toMatchObject({ server: "b", method: "POST", body: '{"q":"hello"}', headers: HARMLESS });
    for (const name of lower(SECRET_HEADERS)) expect(second.headers[name], name).toBeUndefined();
    expect(JSON.stringify(second.headers)).not.toMatch(/secret/);
  });

  it("headers dropped on the way to another origin stay dropped when a later hop comes back", async () => {
    const id = planId();
    await outboundFetch(`${via("echo", id, "302b.302a")}/x`, { headers: SECRET_HEADERS }, ALLOW_LOOPBACK);
    const seen = await hopsOf(id);
    expect(seen.map((h) => h.server)).toEqual(["a", "b", "a"]);
    expect(seen[0].headers.authorization).toBe("Bearer sk-redirect-secret");
    expect(seen[2].headers.authorization).toBeUndefined();
  });

  it("the caller's headers are not changed by a hop", async () => {
    const headers = new Headers(SECRET_HEADERS);
    await outboundFetch(`${via("echo", planId(), "307b")}/x`, { headers }, ALLOW_LOOPBACK);
    expect(headers.get("authorization")).toBe("Bearer sk-redirect-secret");
  });

  it("301/302 turn a POST into a GET without its body (and its content headers); 303 anything; 307/308 keep both", async () => {
    const cases: Array<[plan: string, method: string, body: string]> = [
      ["301a", "GET", ""],
      ["302a", "GET", ""],
      ["303a", "GET", ""],
      ["307a", "POST", '{"q":"hello"}'],
      ["308a", "POST", '{"q":"hello"}'],
    ];
    for (const [plan, method, body] of cases) {
      const id = planId();
      await outboundFetch(`${via("echo", id, plan)}/x`, post(), ALLOW_LOOPBACK);
      const last = (await hopsOf(id)).at(-1)!;
      expect([plan, last.method, last.body], plan).toEqual([plan, method, body]);
      if (method === "GET") expect(last.headers["content-type"], plan).toBeUndefined();
    }
    const put = planId();
    await outboundFetch(`${via("echo", put, "302a")}/x`, { method: "PUT", body: "kept" }, ALLOW_LOOPBACK);
    expect((await hopsOf(put)).at(-1)).toMatchObject({ method: "PUT", body: "kept" });
  });

  it("a body given as a stream is sent again after a 307", async () => {
    const id = planId();
    const body = new Blob(['{"streamed":true}']).stream();
    await outboundFetch(`${via("echo", id, "307a")}/x`, { method: "POST", body }, ALLOW_LOOPBACK);
    expect((await hopsOf(id)).map((h) => h.body)).toEqual(['{"streamed":true}', '{"streamed":true}']);
  });

  it("5 hops are followed; a 6th is a 502 naming the limit, and every fetch underneath is redirect: manual", async () => {
    const spy = vi.spyOn(globalThis, "fetch");
    const ok = await endpointFetch(`${via("openai", planId(), hops(5))}/echo`, {}, LOCAL);
    expect(ok.status).toBe(200);
    expect(spy.mock.calls).toHaveLength(6);
    expect(spy.mock.calls.every(([, init]) => init?.redirect === "manual")).toBe(true);

    const id = planId();
    const err = await endpointFetch(`${via("openai", id, hops(6))}/echo`, {}, LOCAL).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedirectRefused);
    expect(err).toMatchObject({
      status: 502,
      message: `test endpoint: ${originA()} redirected more than 5 times (at most 5 redirects are followed)`,
    });
    expect(await hopsOf(id)).toHaveLength(6); // the 7th request was never sent
  });

  it("every hop goes through the policy: a hop to an origin the policy does not allow is refused before it is sent", async () => {
    const id = planId();
    const production = { field: "chatOpenAI basepath", env: { ENVIRONMENT: "production", OUTBOUND_ALLOW: new URL(originA()).host } };
    const err = await endpointFetch(`${via("openai", id, "307b")}/echo`, post(), production).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundRefused);
    expect((err as Error).message).toMatch(/^chatOpenAI basepath refused by the outbound policy: 127\.0\.0\.1 is a loopback address/);
    expect((await hopsOf(id)).map((h) => h.server)).toEqual(["a"]);
    // The request rule too: only origin b listed, a is refused before anything is sent.
    const other = planId();
    await expect(outboundFetch(`${via("echo", other, "-")}/x`, {}, { OUTBOUND_ALLOW: new URL(originB()).host })).rejects.toThrow(
      /^Outbound request refused: 127\.0\.0\.1 is a loopback address/,
    );
    expect(await hopsOf(other)).toEqual([]);
  });
});

describe("the finding itself, through POST /prediction (chatOpenAI with a credential)", () => {
  it("a model endpoint redirecting to another origin: the answer comes from there, the credential does not go there", async () => {
    const credential = await openAICredential("sk-finding-28-4");
    const id = planId();
    const flow = await saveChain({ model: "chatOpenAI", credential, base: `${via("openai", id, "307b")}/v1` });
    const answer = await json("POST", `/prediction/${flow}`, { body: { question: "where did my key go?" } });
    expect(answer.text).toBe("echo: where did my key go?");
    expect((await hopsOf(id)).map((h) => [h.server, h.headers.authorization ?? null])).toEqual([
      ["a", "Bearer sk-finding-28-4"],
      ["b", null],
    ]);
    expect(await leaksTo(id, "sk-finding-28-4")).toEqual([]);
  });

  it("six hops: a 502 whose message names the limit (and a streamed run's error frame says the same)", async () => {
    const credential = await openAICredential("sk-finding-28-4");
    const flow = await saveChain({ model: "chatOpenAI", credential, base: `${via("openai", planId(), hops(6, 307))}/v1` });
    const err = await expectError(await call("POST", `/prediction/${flow}`, { body: { question: "hi" } }), 502);
    const limit = /^chatOpenAI basepath: http:\/\/127\.0\.0\.1:\d+ redirected more than 5 times \(at most 5 redirects are followed\)$/;
    expect(err.message).toMatch(limit);
    const frames = await framesOf(await call("POST", `/prediction/${flow}`, { body: { question: "hi", streaming: true } }));
    expect(frames.map((f) => f.event)).toEqual(["error", "end"]);
    expect(frames[0].data).toMatch(limit);
  });
});

describe("https → http, and other origins over https (fetch stubbed: no TLS on loopback)", () => {
  const answering = (location: (url: string) => string | undefined) =>
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      const to = location(String(input));
      return to ? new Response(null, { status: 302, headers: { location: to } }) : new Response("arrived");
    });

  it("a redirect from https to http is refused (502), whatever the policy allows; the http URL is never fetched", async () => {
    const spy = answering((url) => (url.startsWith("https://") ? "http://api.example.com/v1/chat" : undefined));
    const err = await endpointFetch("https://api.example.com/v1", { headers: SECRET_HEADERS }, LOCAL).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedirectRefused);
    expect(err).toMatchObject({
      status: 502,
      message: "test endpoint: https://api.example.com redirected from https to http (http://api.example.com); a redirect may not drop TLS",
    });
    expect(spy.mock.calls.map(([u]) => String(u))).toEqual(["https://api.example.com/v1"]);
    await expect(outboundFetch("https://a.example/", {}, { OUTBOUND_ALLOW: "*" })).rejects.toThrow(/redirected from https to http/);
  });

  it("http → https is followed; a scheme change is another origin, so the credential is dropped", async () => {
    const spy = answering((url) => (url === "http://api.example.com/v1" ? "https://api.example.com/v1" : undefined));
    const res = await endpointFetch("http://api.example.com/v1", { headers: SECRET_HEADERS }, LOCAL);
    expect(await res.text()).toBe("arrived");
    const headersOf = (i: number) => new Headers(spy.mock.calls[i][1]?.headers);
    expect(headersOf(0).get("authorization")).toBe("Bearer sk-redirect-secret");
    expect(headersOf(1).get("authorization")).toBeNull();
  });

  it("between https origins: same host and port keeps the credential; another host or port drops it", async () => {
    const spy = answering((url) =>
      url === "https://api.example.com/a"
        ? "https://api.example.com/b"
        : url === "https://api.example.com/b"
          ? "https://api.example.com:8443/c"
          : undefined,
    );
    await endpointFetch("https://api.example.com/a", { headers: { "x-goog-api-key": "k" } }, LOCAL);
    expect(spy.mock.calls.map(([, init]) => new Headers(init?.headers).get("x-goog-api-key"))).toEqual(["k", "k", null]);
  });
});
