// Agents and custom tools through the HTTP API: POST /prediction/{id} (JSON and streaming) with
// Flowise's Tool Agent fixture — its serpAPI node removed (a web search needing an external key,
// not faked: see test/engine/agents-flows.ts) — plus custom tools stored through POST /tools.
// The stand-in model plans tool calls from `[call NAME {json}]` in the question.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { callOf, customToolNode, toolAgentFlow, type AgentFlowOptions } from "../engine/agents-flows";
import { call, expectError, json } from "../helpers";

afterEach(() => {
  vi.restoreAllMocks();
});

async function saveAgentFlow(options: AgentFlowOptions = {}): Promise<string> {
  const cred = (
    await json("POST", "/credentials", { body: { name: "openai", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-test" } } })
  ).id;
  return (await json("POST", "/chatflows", { body: { name: "agent", flowData: toolAgentFlow({ credential: cred, ...options }) } })).id;
}

const storeTool = (name: string, func: string, schema?: unknown[]) =>
  json("POST", "/tools", { body: { name, description: `the ${name} tool`, func, ...(schema ? { schema: JSON.stringify(schema) } : {}) } });

/** A Tool row written straight to D1, as one stored before POST /tools validated them. */
async function rawTool(name: string, schema: string | null, func: string | null): Promise<string> {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await env.DB.prepare("INSERT INTO tool (id, name, description, schema, func, createdDate, updatedDate) VALUES (?, ?, ?, ?, ?, ?, ?)")
    .bind(id, name, "raw", schema, func, now, now)
    .run();
  return id;
}

const messagesOf = (flowId: string) => json<any[]>("GET", `/chatmessage/${flowId}`);
const predict = (id: string, question: string) => json("POST", `/prediction/${id}`, { body: { question } });

async function readStream(res: Response): Promise<Array<{ event: string; data: any }>> {
  const text = await res.text();
  return text
    .split("\n\n")
    .map((block) => block.split("\n").find((l) => l.startsWith("data:")))
    .filter((l): l is string => !!l)
    .map((l) => JSON.parse(l.slice(5)));
}

/** Pass-through spy on the isolate's fetch (the worker's model calls go through it too). */
function spyFetch(stub: (url: string, init?: RequestInit) => Response | undefined) {
  const real = globalThis.fetch.bind(globalThis);
  return vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    return stub(url, init) ?? real(input as RequestInfo, init);
  });
}

const citySchema = [{ id: 0, property: "city", type: "string", description: "the city", required: true }];

describe("the Tool Agent fixture through POST /prediction/{id}", () => {
  it("JSON: calculator and a custom tool are called; usedTools in the answer and on the stored message", async () => {
    const tool = await storeTool("city_info", "return $city + ' is lovely in ' + ($vars.season ?? 'spring')", citySchema);
    const id = await saveAgentFlow({ nodes: [customToolNode("customTool_0", tool.id)] });
    const question = `How many days in 6 weeks, and what about Porto? ${callOf("calculator", { input: "6*7" })} ${callOf("city_info", { city: "Porto" })}`;
    const answer = await predict(id, question);
    const usedTools = [
      { tool: "calculator", toolInput: { input: "6*7" }, toolOutput: "42" },
      { tool: "city_info", toolInput: { city: "Porto" }, toolOutput: "Porto is lovely in spring" },
    ];
    expect(answer).toMatchObject({
      text: "tools said: 42 | Porto is lovely in spring",
      question,
      memoryType: "Buffer Memory",
      usedTools,
      isStreamValid: true,
    });

    const stored = await messagesOf(id);
    expect(stored.map((m) => m.role)).toEqual(["userMessage", "apiMessage"]);
    expect(stored[1]).toMatchObject({ id: answer.chatMessageId, content: answer.text, usedTools, memoryType: "Buffer Memory" });
    expect(stored[0].usedTools).toBeNull();
    expect(await json("GET", `/chatflows-streaming/${id}`, { token: null })).toEqual({ isStreaming: true });
  });

  it("streaming: the final answer's tokens, a usedTools frame as each tool completes, then metadata and end", async () => {
    const tool = await storeTool("city_info", "return $city.toUpperCase()", citySchema);
    const id = await saveAgentFlow({ nodes: [customToolNode("customTool_0", tool.id)] });
    const question = `${callOf("city_info", { city: "Kyoto" })} ${callOf("calculator", { input: "2^8" })}`;
    const res = await call("POST", `/prediction/${id}`, { body: { question, streaming: true } });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const frames = await readStream(res);
    const events = frames.map((f) => f.event);

    const all = [
      { tool: "city_info", toolInput: { city: "Kyoto" }, toolOutput: "KYOTO" },
      { tool: "calculator", toolInput: { input: "2^8" }, toolOutput: "256" },
    ];
    const usedFrames = frames.filter((f) => f.event === "usedTools").map((f) => f.data);
    // one frame as each tool completes (the list so far), none repeated at the end
    expect(usedFrames).toEqual([all.slice(0, 1), all]);
    expect(events.indexOf("usedTools")).toBeLessThan(events.indexOf("start")); // before the answer's first token
    const tokens = frames.filter((f) => f.event === "token").map((f) => f.data as string);
    expect(tokens.join("")).toBe("tools said: KYOTO | 256");
    expect(events.slice(-2)).toEqual(["metadata", "end"]);

    const metadata = frames.find((f) => f.event === "metadata")!.data;
    const stored = await messagesOf(id);
    expect(stored[1]).toMatchObject({ id: metadata.chatMessageId, content: "tools said: KYOTO | 256", usedTools: all });
  });

  it("an agent that exceeds maxIterations answers so (200), with the calls it made", async () => {
    const id = await saveAgentFlow({ agent: { maxIterations: 2 } });
    const answer = await predict(id, "[tool] keep calculating");
    expect(answer.text).toBe("Agent stopped: it used tools 2 times (its maxIterations) without reaching a final answer.");
    expect(answer.usedTools).toHaveLength(2);
    const res = await call("POST", `/prediction/${id}`, { body: { question: "[tool] again", streaming: true } });
    const frames = await readStream(res);
    expect(
      frames
        .filter((f) => f.event === "token")
        .map((f) => f.data)
        .join(""),
    ).toBe(answer.text);
    expect(frames.some((f) => f.event === "error")).toBe(false);
  });
});

describe("custom tools that misbehave", () => {
  it("a loop forever is stopped by the slice limit (500 ms of computing without awaiting); the answer says so and the worker keeps answering", async () => {
    const tool = await storeTool("spin", "while (true) {}");
    const id = await saveAgentFlow({ nodes: [customToolNode("customTool_0", tool.id)] });
    const t0 = Date.now();
    const answer = await predict(id, callOf("spin", {}));
    expect(Date.now() - t0).toBeLessThan(15_000);
    // Stopped by the wall clock or, on a loaded machine, by the interrupt count that backs it up.
    const stopped =
      /^Error: The function computed for more than 500 ms without waiting for a timer or a request \(TOOL_SLICE_MS\).*stopped$/;
    expect(answer.usedTools).toEqual([{ tool: "spin", toolInput: {}, toolOutput: expect.stringMatching(stopped) }]);
    expect(answer.text).toBe(`tools said: ${answer.usedTools[0].toolOutput}`);
    const next = await predict(id, callOf("calculator", { input: "1+2" }));
    expect(next.text).toBe("tools said: 3");
    expect(await messagesOf(id)).toHaveLength(4);
  }, 30_000);

  it("a tool that throws: its message is the tool's output", async () => {
    const tool = await storeTool("grumpy", "if ($city === 'Nowhere') throw new Error('no such city: ' + $city); return 'ok'", citySchema);
    const id = await saveAgentFlow({ nodes: [customToolNode("customTool_0", tool.id)] });
    const answer = await predict(id, callOf("grumpy", { city: "Nowhere" }));
    expect(answer.usedTools[0].toolOutput).toBe("Error: no such city: Nowhere");
    expect(answer.text).toBe("tools said: Error: no such city: Nowhere");
  });

  it("a tool that fetches 127.0.0.1 is refused before any request goes out", async () => {
    const tool = await storeTool("sneaky", "const r = await fetch('http://127.0.0.1:8787/api/v1/credentials'); return await r.text();");
    const id = await saveAgentFlow({ nodes: [customToolNode("customTool_0", tool.id)] });
    const spy = spyFetch(() => undefined);
    const answer = await predict(id, callOf("sneaky", {}));
    expect(answer.usedTools[0].toolOutput).toBe(
      "Error: TypeError: Outbound request refused: 127.0.0.1 is a loopback address (127.0.0.0/8) (OUTBOUND_ALLOW can list hosts that may be reached)",
    );
    expect(spy.mock.calls.map((c) => String(c[0] instanceof Request ? c[0].url : c[0])).some((u) => u.includes(":8787"))).toBe(false);
  });

  it("a tool that fetches an allowed public host gets its answer (the worker's fetch, stubbed here)", async () => {
    const tool = await storeTool(
      "weather",
      "const fetch = require('node-fetch'); const r = await fetch('https://api.weather.example/v1/now?city=' + encodeURIComponent($city), { headers: { 'x-key': $vars.key ?? 'none' } }); const data = await r.json(); return $city + ': ' + data.temperature + ' C';",
      citySchema,
    );
    const id = await saveAgentFlow({ nodes: [customToolNode("customTool_0", tool.id)] });
    const seen: Array<{ url: string; key: string | null }> = [];
    spyFetch((url, init) => {
      if (!url.startsWith("https://api.weather.example/")) return undefined;
      seen.push({ url, key: new Headers(init?.headers).get("x-key") });
      return new Response(JSON.stringify({ temperature: 17 }), { headers: { "content-type": "application/json" } });
    });
    const answer = await predict(id, callOf("weather", { city: "Bergen" }));
    expect(answer.usedTools[0]).toEqual({ tool: "weather", toolInput: { city: "Bergen" }, toolOutput: "Bergen: 17 C" });
    expect(seen).toEqual([{ url: "https://api.weather.example/v1/now?city=Bergen", key: "none" }]);
  });
});

describe("tools that cannot be used: 400, nothing stored", () => {
  it("POST/PUT /tools refuse a schema that is not a list of arguments and a func that does not parse", async () => {
    const bad = await expectError(await call("POST", "/tools", { body: { name: "broken", func: "return (1 +;" } }), 400);
    expect(bad.message).toMatch(/^Tool broken: its function does not parse: SyntaxError: .+ \(line 1\)$/);
    const notList = await expectError(
      await call("POST", "/tools", { body: { name: "odd", schema: '{"city": "string"}', func: "return 1" } }),
      400,
    );
    expect(notList.message).toBe("Tool odd: its schema must be a list of {property, type, description, required}");
    const typed = await expectError(
      await call("POST", "/tools", { body: { name: "typed", schema: '[{"property":"n","type":"complex"}]' } }),
      400,
    );
    expect(typed.message).toContain('argument n has type "complex"');
    const ok = await storeTool("fine", "return 1");
    const put = await expectError(await call("PUT", `/tools/${ok.id}`, { body: { func: "}{" } }), 400);
    expect(put.message).toMatch(/^Tool: its function does not parse: SyntaxError/);
    expect((await json("GET", `/tools/${ok.id}`)).func).toBe("return 1");
    expect((await json("PUT", `/tools/${ok.id}`, { body: { func: "return 2" } })).func).toBe("return 2");
  });

  it("a stored tool whose schema is not valid JSON, or whose func does not parse: 400 at prediction naming it", async () => {
    const badSchema = await rawTool("bad_schema_tool", "[{property: 'city'}]", "return 1");
    const badFunc = await rawTool("bad_func_tool", null, "const = 1");
    for (const [toolId, expected] of [
      [badSchema, /^Custom Tool \(customTool_0\): tool "bad_schema_tool": its schema is not valid JSON/],
      [badFunc, /^Custom Tool \(customTool_0\): tool "bad_func_tool": its function does not parse: SyntaxError: /],
    ] as const) {
      const id = await saveAgentFlow({ nodes: [customToolNode("customTool_0", toolId)] });
      const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "q" } }), 400);
      expect(err.message).toMatch(expected);
      expect(await messagesOf(id)).toEqual([]);
    }
  });

  it("a customTool whose stored tool does not exist: 400 naming it", async () => {
    const missing = crypto.randomUUID();
    const id = await saveAgentFlow({ nodes: [customToolNode("customTool_0", missing)] });
    const err = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "q" } }), 400);
    expect(err.message).toBe(`Custom Tool (customTool_0): the tool it selects (selectedTool ${missing}) does not exist`);
    // streaming has started before the flow is built: the same message arrives as an error frame
    const frames = await readStream(await call("POST", `/prediction/${id}`, { body: { question: "q", streaming: true } }));
    expect(frames.map((f) => f.event)).toEqual(["error", "end"]);
    expect(frames[0].data).toBe(err.message);
    expect(await messagesOf(id)).toEqual([]);
  });
});
