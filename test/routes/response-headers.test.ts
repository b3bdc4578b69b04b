// What every response carries, whoever made it: the request's id (the client's when it is a plain
// token, else a new one) and the CORS headers of its path — on a route's own Response (a stream)
// as on a JSON answer, an error and a preflight's 204 (middleware/request-id.ts, cors.ts).
import { describe, expect, it } from "vitest";
import llmChain from "../engine/fixtures/llm-chain.json";
import { type Fixture, flowDataOf, marker, pointAtStandin } from "../engine/helpers";
import { call, json } from "../helpers";

const ORIGIN = "https://shop.example";

async function streamedFlow(): Promise<string> {
  const cred = (
    await json("POST", "/credentials", { body: { name: "openai", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } } })
  ).id;
  const flowData = flowDataOf(llmChain as unknown as Fixture, (nodes) => {
    for (const node of nodes.values()) if (node.data.category === "Chat Models") pointAtStandin(node, cred);
  });
  return (await json("POST", "/chatflows", { body: { name: "headers", flowData } })).id;
}

describe("response headers", () => {
  it("a streamed prediction (the route's own Response) carries the request id and the widget's CORS headers", async () => {
    const id = await streamedFlow();
    const res = await call("POST", `/prediction/${id}`, {
      body: { question: `hi ${marker()}`, streaming: true },
      headers: { origin: ORIGIN, "x-request-id": "client-id-1" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("x-request-id")).toBe("client-id-1");
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(res.headers.get("access-control-expose-headers")).toBe("x-request-id,x-d1-bookmark");
    expect(res.headers.get("vary")).toContain("Origin");
    expect(await res.text()).toContain('"event":"end"');
  });

  it("a client's id that is not a plain token is replaced by a new one; each request gets its own", async () => {
    const a = await call("GET", "/ping", { headers: { "x-request-id": "bad id<script>" } });
    const b = await call("GET", "/ping");
    const c = await call("GET", "/ping", { headers: { "x-request-id": "x".repeat(256) } });
    for (const res of [a, b, c]) expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set([a, b, c].map((r) => r.headers.get("x-request-id"))).size).toBe(3);
  });

  it("an error answer carries them too; an origin outside CORS_ORIGINS gets no Allow-Origin on a non-widget path", async () => {
    const res = await call("GET", `/chatflows/${crypto.randomUUID()}`, { headers: { origin: "https://elsewhere.example" } });
    expect(res.status).toBe(404);
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.headers.get("access-control-expose-headers")).toBe("x-request-id,x-d1-bookmark");
    expect(res.headers.get("vary")).toContain("Origin");
  });

  it("a preflight answers 204 with the methods and headers a browser may send", async () => {
    const res = await call("OPTIONS", `/prediction/some-flow`, {
      token: null,
      headers: { origin: ORIGIN, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    expect(res.headers.get("access-control-allow-headers")).toContain("content-type");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
