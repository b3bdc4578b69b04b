// The nodes without a chat model: Start, Condition, Loop, Iteration, Custom Function, HTTP,
// Execute Flow, Direct Reply — hand-built flows, run in the engine.
import { describe, expect, it } from "vitest";
import { credential } from "../engine/helpers";
import {
  agent,
  directReply,
  edge,
  graph,
  llm,
  loopbackRuntime,
  marker,
  node,
  outputOf,
  requestsWith,
  run,
  standinUrl,
  start,
} from "./helpers";

const cf = (id: string, code: string, inputs: Record<string, unknown> = {}) =>
  node(id, { customFunctionJavascriptFunction: code, ...inputs });

describe("Start", () => {
  it("form input: the form is the input every node gets ({{ $form.x }}, $input as k: v lines)", async () => {
    const g = graph(
      [
        start({ startInputType: "formInput", formTitle: "Mail", formInputTypes: [{ type: "string", label: "Subject", name: "subject" }] }),
        cf("customFunctionAgentflow_0", "return $input + ' | ' + $subjectOut", {
          customFunctionInputVariables: [{ variableName: "subjectOut", variableValue: "{{ $form.subject }}!" }],
        }),
      ],
      [edge("startAgentflow_0", "customFunctionAgentflow_0")],
    );
    const out = await run(g, { form: { subject: "Hi", to: "bob" } });
    expect(out.text).toBe("subject: Hi\nto: bob | Hi!");
    expect(out.executedData[0].data.input).toEqual({
      form: { title: "Mail", description: undefined, inputs: [{ type: "string", label: "Subject", name: "subject" }] },
    });
    expect(out.executedData[0].data.output).toEqual({ form: { subject: "Hi", to: "bob" } });
    expect(out.form).toEqual({ subject: "Hi", to: "bob" });
  });

  it("a form input flow asked again without a form restores the session's previous form", async () => {
    const g = graph(
      [start({ startInputType: "formInput" }), directReply("directReplyAgentflow_0", "to {{ $form.to }}")],
      [edge("startAgentflow_0", "directReplyAgentflow_0")],
    );
    const first = await run(g, { form: { to: "bob" } });
    const again = await run(g, { previousExecution: first.executedData });
    expect(again.text).toBe("to bob");
  });

  it("flow state: declared rows (or an object), persisted from the previous execution when asked", async () => {
    const g = (persist: boolean, startState: unknown) =>
      graph(
        [
          start({ startState, startPersistState: persist }),
          cf("customFunctionAgentflow_0", "return String(Number($flow.state.n || 0) + 1)", {
            customFunctionUpdateState: [{ key: "n", value: "{{ output }}" }],
          }),
        ],
        [edge("startAgentflow_0", "customFunctionAgentflow_0")],
      );
    const first = await run(g(true, [{ key: "n", value: "0" }]), { question: "q" });
    expect(first.executedData.at(-1)!.data.state).toEqual({ n: "1" });
    const second = await run(g(true, [{ key: "n", value: "0" }]), { question: "q", previousExecution: first.executedData });
    expect(second.text).toBe("2");
    const notPersisted = await run(g(false, { n: "5" }), { question: "q", previousExecution: second.executedData });
    expect(notPersisted.text).toBe("6");
  });

  it("ephemeral memory: the stored conversation is not sent", async () => {
    const m = marker();
    const history = [
      { role: "userMessage" as const, content: `old question ${m}` },
      { role: "apiMessage" as const, content: "old answer" },
    ];
    const g = (ephemeral: boolean) =>
      graph([start({ startEphemeralMemory: ephemeral }), llm("llmAgentflow_0")], [edge("startAgentflow_0", "llmAgentflow_0")]);
    const kept = await run(g(false), { question: `new ${m}` }, { history });
    expect((kept.executedData[1].data.input!.messages as unknown[]).length).toBe(3);
    const dropped = await run(g(true), { question: `new ${m}` }, { history });
    expect(dropped.executedData[0].data.output).toMatchObject({ ephemeralMemory: true });
    expect(dropped.executedData[1].data.input!.messages).toEqual([{ role: "user", content: `new ${m}` }]);
  });

  it("a webhook start keeps the webhook as its output and passes the question (none in payload mode, which gets the JSON)", async () => {
    const webhook = { body: { n: 1 }, headers: { "x-kind": "push" }, query: {} };
    const out = await run(graph([start({ startInputType: "webhookTrigger" })], []), { question: "made from the hook", webhook });
    expect(out.executedData[0].data).toMatchObject({
      input: { question: "made from the hook" },
      output: { webhook, question: "made from the hook" },
    });
    const payload = await run(graph([start({ startInputType: "webhookTrigger", webhookInputMode: "payload" })], []), { webhook });
    expect(payload.executedData[0].data.output).toEqual({ webhook });
  });

  it("a schedule start passes its default text, a blank question, or its form", async () => {
    const text = await run(
      graph([start({ startInputType: "scheduleInput", scheduleInputMode: "text", scheduleDefaultInput: "default" })], []),
      {},
    );
    expect(text.executedData[0].data.output).toMatchObject({ question: "default" });
    const none = await run(graph([start({ startInputType: "scheduleInput", scheduleInputMode: "none" })], []), { question: " " });
    expect(none.executedData[0].data.output).toMatchObject({ question: " " });
    const form = await run(
      graph([start({ startInputType: "scheduleInput", scheduleInputMode: "form", scheduleFormInputTypes: [{ name: "team" }] })], []),
      { form: { team: "eng" } },
    );
    expect(form.executedData[0].data).toMatchObject({ input: { form: { inputs: [{ name: "team" }] } }, output: { form: { team: "eng" } } });
  });
});

describe("Condition", () => {
  const branchTaken = async (type: string, value1: unknown, operation: string, value2: unknown) => {
    const g = graph(
      [
        start(),
        node("conditionAgentflow_0", { conditions: [{ type, value1, operation, value2 }] }),
        directReply("directReplyAgentflow_0", "IF"),
        directReply("directReplyAgentflow_1", "ELSE"),
      ],
      [
        edge("startAgentflow_0", "conditionAgentflow_0"),
        edge("conditionAgentflow_0", "directReplyAgentflow_0", 0),
        edge("conditionAgentflow_0", "directReplyAgentflow_1", 1),
      ],
    );
    return (await run(g, { question: "Hello World" })).text;
  };
  const cases: Array<[string, unknown, string, unknown, string]> = [
    ["string", "{{ question }}", "contains", "World", "IF"],
    ["string", "{{ question }}", "contains", "world", "ELSE"],
    ["string", "{{ question }}", "notContains", "xyz", "IF"],
    ["string", "{{ question }}", "startsWith", "Hello", "IF"],
    ["string", "{{ question }}", "endsWith", "Hello", "ELSE"],
    ["string", "**{{ question }}**", "equal", "Hello World", "IF"],
    ["string", "<p>{{ question }}</p>", "equal", "<p>Hello World</p>", "IF"],
    ["string", "{{ question }}", "notEqual", "Hello World", "ELSE"],
    ["string", "{{ question }}", "regex", "^Hel+o\\s\\w+$", "IF"],
    ["string", "{{ question }}", "regex", "([", "ELSE"],
    ["string", "", "isEmpty", "", "IF"],
    ["string", "{{ question }}", "notEmpty", "", "IF"],
    ["number", "10", "larger", "9.5", "IF"],
    ["number", "abc", "equal", "0", "IF"],
    ["number", "3", "smallerEqual", "3", "IF"],
    ["number", "3", "smaller", "3", "ELSE"],
    ["number", "4", "largerEqual", "5", "ELSE"],
    ["number", "4", "notEqual", "5", "IF"],
    ["boolean", true, "equal", true, "IF"],
    ["boolean", true, "notEqual", false, "IF"],
  ];
  for (const [type, v1, op, v2, want] of cases)
    it(`${type} ${JSON.stringify(v1)} ${op} ${JSON.stringify(v2)} → ${want}`, async () =>
      expect(await branchTaken(type, v1, op, v2)).toBe(want));

  it("else-if: the first true row wins; the output marks it and appends Else", async () => {
    const rows = [
      { type: "string", value1: "{{ question }}", operation: "equal", value2: "x" },
      { type: "string", value1: "{{ question }}", operation: "contains", value2: "b" },
      { type: "string", value1: "{{ question }}", operation: "contains", value2: "c" },
    ];
    const g = graph(
      [
        start(),
        node("conditionAgentflow_0", { conditions: rows }),
        ...[0, 1, 2, 3].map((i) => directReply(`directReplyAgentflow_${i}`, `branch ${i}`)),
      ],
      [
        edge("startAgentflow_0", "conditionAgentflow_0"),
        ...[0, 1, 2, 3].map((i) => edge("conditionAgentflow_0", `directReplyAgentflow_${i}`, i)),
      ],
    );
    const out = await run(g, { question: "abc" });
    expect(out.text).toBe("branch 1");
    expect(out.executedData.map((e) => e.nodeId)).toEqual(["startAgentflow_0", "conditionAgentflow_0", "directReplyAgentflow_1"]);
    expect(
      (outputOf(out.executedData, "conditionAgentflow_0")!.conditions as Array<{ isFulfilled?: boolean }>).map((c) => c.isFulfilled),
    ).toEqual([undefined, true, undefined, false]);
    expect((await run(g, { question: "zzz" })).text).toBe("branch 3");
  });

  it("an unknown operation is a clear error", async () => {
    const g = graph(
      [start(), node("conditionAgentflow_0", { conditions: [{ type: "string", value1: "a", operation: "looksLike", value2: "b" }] })],
      [edge("startAgentflow_0", "conditionAgentflow_0")],
    );
    const out = await run(g, { question: "q" });
    expect(out).toMatchObject({ state: "ERROR", errorStatus: 400 });
    expect(out.error).toMatch(/condition #1 has an unknown operation "looksLike"/);
  });
});

describe("Loop", () => {
  const loopFlow = (max: unknown, fallback?: string) =>
    graph(
      [
        start({ startState: [{ key: "n", value: "0" }] }),
        cf("customFunctionAgentflow_0", "return String(Number($flow.state.n) + 1)", {
          customFunctionUpdateState: [{ key: "n", value: "{{ output }}" }],
        }),
        node("loopAgentflow_0", {
          loopBackToNode: "customFunctionAgentflow_0-Count",
          maxLoopCount: max,
          ...(fallback ? { fallbackMessage: fallback } : {}),
        }),
      ],
      [edge("startAgentflow_0", "customFunctionAgentflow_0"), edge("customFunctionAgentflow_0", "loopAgentflow_0")],
    );

  it("jumps back until its count is used up, then answers the fallback message (streamed)", async () => {
    const out = await run(loopFlow(3, "Done looping at {{ $flow.state.n }}"), { question: "q", streaming: true });
    expect(out.state).toBe("FINISHED");
    expect(out.executedData.filter((e) => e.nodeId === "customFunctionAgentflow_0").length).toBe(3);
    expect(out.text).toBe("Done looping at 3"); // resolved when the loop ran the last time
    expect(out.executedData.at(-1)!.data.output).toMatchObject({
      content: "Done looping at 3",
      nodeID: "customFunctionAgentflow_0",
      maxLoopCount: 3,
    });
    expect(out.rec.tokens()).toBe("Done looping at 3");
  });

  it("default count 5 and the default message; {{ loop_count }} counts", async () => {
    const out = await run(loopFlow(""), { question: "q" });
    expect(out.executedData.filter((e) => e.nodeId === "customFunctionAgentflow_0").length).toBe(5);
    expect(out.text).toBe("Loop completed after reaching maximum iteration count of 5.");
  });

  it("a loop without a reachable end stops at the step limit with a clear error", async () => {
    const g = graph(
      [
        start(),
        directReply("directReplyAgentflow_0", "again"),
        node("loopAgentflow_0", { loopBackToNode: "directReplyAgentflow_0-Again", maxLoopCount: 1_000_000 }),
      ],
      [edge("startAgentflow_0", "directReplyAgentflow_0"), edge("directReplyAgentflow_0", "loopAgentflow_0")],
    );
    const out = await run(g, { question: "q" }, { lightCheckpoints: true });
    expect(out).toMatchObject({ state: "ERROR", errorStatus: 400 });
    expect(out.error).toMatch(/^Maximum iteration limit reached: the flow ran 1000 nodes/);
    expect(out.executedData).toHaveLength(1001); // 1000 that ran, and the error entry
  }, 60_000);
});

describe("Iteration", () => {
  const iterationFlow = (input: unknown, inner = "return 'item ' + $item + ' of ' + $flow.state.tag") =>
    graph(
      [
        start({ startState: [{ key: "tag", value: "T" }] }),
        node("iterationAgentflow_0", { iterationInput: input }),
        cf("customFunctionAgentflow_0", inner, {
          customFunctionInputVariables: [{ variableName: "item", variableValue: "{{ $iteration.item }}" }],
        }),
        directReply("directReplyAgentflow_0", "after: {{ iterationAgentflow_0 }}"),
      ].map((n) => (n.id === "customFunctionAgentflow_0" ? { ...n, parentNode: "iterationAgentflow_0", extent: "parent" } : n)),
      [edge("startAgentflow_0", "iterationAgentflow_0"), edge("iterationAgentflow_0", "directReplyAgentflow_0")],
    );

  it("runs its block once per item with {{ $iteration }}; results joined; child entries before its own", async () => {
    const out = await run(iterationFlow('[{"item":"abc"},{"item":"def"}]'), { question: "q" });
    expect(out.text).toBe("after: item abc of T\nitem def of T");
    expect(out.executedData.map((e) => e.nodeId)).toEqual([
      "startAgentflow_0",
      "customFunctionAgentflow_0",
      "customFunctionAgentflow_0",
      "iterationAgentflow_0",
      "directReplyAgentflow_0",
    ]);
    expect(out.executedData[1].data).toMatchObject({
      iterationIndex: 0,
      parentNodeId: "iterationAgentflow_0",
      iterationContext: { index: 0, value: { item: "abc" }, isFirst: true, isLast: false },
    });
    expect(outputOf(out.executedData, "iterationAgentflow_0")).toEqual({
      iterationResults: ["item abc of T", "item def of T"],
      content: "item abc of T\nitem def of T",
    });
    // Each child entry was checkpointed as it finished.
    expect(out.rec.checkpoints.map((c) => c.data.length)).toEqual([1, 2, 3, 4, 5, 5]);
  });

  it("escaped brackets are accepted; an item that fails gives its error as the result", async () => {
    const out = await run(
      iterationFlow('\\[{"item":"ok"},{"item":"bad"}\\]', "if ($item === 'bad') throw new Error('no ' + $item); return $item"),
      { question: "q" },
    );
    expect(out.state).toBe("FINISHED");
    expect(outputOf(out.executedData, "iterationAgentflow_0")!.iterationResults).toEqual([
      "ok",
      "Error in iteration 2: customFunctionAgentflow_0 (customFunctionAgentflow_0): no bad",
    ]);
  });

  it("frames of nodes inside the block (an agent's calledTools) reach the stream, between the Iteration's own", async () => {
    const g = graph(
      [
        start(),
        node("iterationAgentflow_0", { iterationInput: "[1, 2]" }, { label: "Each" }),
        {
          ...agent("agentAgentflow_0", {
            agentUserMessage: '[call calculator {"input":"{{ $iteration }}+1"}] go',
            agentTools: [{ agentSelectedTool: "calculator", agentSelectedToolConfig: {} }],
          }),
          parentNode: "iterationAgentflow_0",
          extent: "parent",
        },
      ],
      [edge("startAgentflow_0", "iterationAgentflow_0")],
    );
    const out = await run(g, { question: "q", streaming: true });
    expect(outputOf(out.executedData, "iterationAgentflow_0")!.iterationResults).toEqual(["tools said: 2", "tools said: 3"]);
    const events = out.rec.frames.map((f) =>
      f.event === "nextAgentFlow" ? `${(f.data as { nodeId: string }).nodeId}:${(f.data as { status: string }).status}` : f.event,
    );
    const from = events.indexOf("iterationAgentflow_0:INPROGRESS");
    expect(events.slice(from)).toEqual([
      "iterationAgentflow_0:INPROGRESS",
      "agentAgentflow_0:INPROGRESS",
      "calledTools",
      "agentAgentflow_0:FINISHED",
      "agentAgentflow_0:INPROGRESS",
      "calledTools",
      "agentAgentflow_0:FINISHED",
      "iterationAgentflow_0:FINISHED",
      "agentFlowExecutedData",
      "agentFlowEvent",
    ]);
    expect(out.rec.frames.some((f) => f.event === "token")).toBe(false); // nothing inside an iteration answers the client
  });

  it("an input that is not an array is a clear error", async () => {
    for (const input of ['{"item":"abc"}', "not json", ""]) {
      const out = await run(iterationFlow(input), { question: "q" });
      expect(out).toMatchObject({ state: "ERROR", errorStatus: 400 });
      expect(out.error).toMatch(
        /^iterationAgentflow_0 \(iterationAgentflow_0\): Invalid input array: its iterationInput must be a JSON array/,
      );
    }
  });
});

describe("Custom Function", () => {
  it("sees $input, $vars, $flow (state, ids) and its input variables; objects come back as pretty JSON", async () => {
    const code = "return { input: $input, v: $vars.region, state: $flow.state.s, chat: $flow.chatId, flow: $flow.chatflowId, extra: $x }";
    const g = graph(
      [
        start({ startState: [{ key: "s", value: "S" }] }),
        cf("customFunctionAgentflow_0", code, {
          customFunctionInputVariables: [{ variableName: "x", variableValue: "{{ $vars.region }}-{{ question }}" }],
        }),
      ],
      [edge("startAgentflow_0", "customFunctionAgentflow_0")],
    );
    const out = await run(g, { question: "hello", vars: { region: "eu" }, chatId: "chat-1", chatflowId: "flow-1", sessionId: "chat-1" });
    expect(out.text).toBe(
      JSON.stringify({ input: "hello", v: "eu", state: "S", chat: "chat-1", flow: "flow-1", extra: "eu-hello" }, null, 2),
    );
  });

  it("a function that throws, loops forever or does not parse fails the node with the sandbox's message", async () => {
    const one = async (code: string) =>
      run(graph([start(), cf("customFunctionAgentflow_0", code)], [edge("startAgentflow_0", "customFunctionAgentflow_0")]), {
        question: "q",
      });
    const thrown = await one("throw new Error('boom')");
    expect(thrown).toMatchObject({
      state: "ERROR",
      errorStatus: 400,
      error: "customFunctionAgentflow_0 (customFunctionAgentflow_0): boom",
    });
    const looping = await one("while (true) {}");
    expect(looping.state).toBe("ERROR");
    expect(looping.error).toMatch(/ran longer than its time limit|instruction budget|computed for more than \d+ ms without waiting/);
    const broken = await one("return (");
    expect(broken.error).toMatch(/does not parse/);
  }, 30_000);

  it("fetch goes through the outbound policy: loopback refused unless allowed", async () => {
    const code = `const r = await fetch("${standinUrl()}/echo?x=1"); return String(r.status)`;
    const g = graph([start(), cf("customFunctionAgentflow_0", code)], [edge("startAgentflow_0", "customFunctionAgentflow_0")]);
    const refused = await run(g, { question: "q" });
    expect(refused.error).toMatch(/Outbound request refused: .*loopback/);
    expect((await run(g, { question: "q" }, { ctx: { runtime: loopbackRuntime() } })).text).toBe("200");
  });
});

describe("HTTP", () => {
  const http = (inputs: Record<string, unknown>) =>
    graph(
      [
        start(),
        node("httpAgentflow_0", inputs),
        directReply("directReplyAgentflow_0", "{{ httpAgentflow_0.output.http.data.method }} {{ httpAgentflow_0.output.http.data.body }}"),
      ],
      [edge("startAgentflow_0", "httpAgentflow_0"), edge("httpAgentflow_0", "directReplyAgentflow_0")],
    );
  const opts = () => ({ ctx: { runtime: loopbackRuntime() } });

  it("GET with headers and query params; the output is {http: {data, status, statusText, headers}}, no content", async () => {
    const g = graph(
      [
        start(),
        node("httpAgentflow_0", {
          method: "GET",
          url: `${standinUrl()}/echo/items`,
          headers: [{ key: "X-Who", value: "{{ question }}" }],
          queryParams: [{ key: "q", value: "a b" }],
        }),
      ],
      [edge("startAgentflow_0", "httpAgentflow_0")],
    );
    const out = await run(g, { question: "me" }, opts());
    expect(out.text).toBe(" ");
    const res = outputOf(out.executedData, "httpAgentflow_0")!.http;
    expect(res).toMatchObject({
      status: 200,
      statusText: "OK",
      data: { method: "GET", path: "/echo/items", query: { q: "a b" }, body: "" },
    });
    expect(res.data.headers["x-who"]).toBe("me");
    expect(res.headers["content-type"]).toBe("application/json");
  });

  const bodies: Array<[string, unknown, string, string]> = [
    ["json", '{"a": "{{ question }}"}', '{"a":"hi"}', "application/json"],
    ["json", [{ key: "a", value: "1" }], '{"a":"1"}', "application/json"],
    ["raw", "plain {{ question }}", "plain hi", "text/plain;charset=UTF-8"],
    [
      "xWwwFormUrlencoded",
      [
        { key: "a", value: "x y" },
        { key: "b", value: "{{ question }}" },
      ],
      "a=x+y&b=hi",
      "application/x-www-form-urlencoded",
    ],
  ];
  for (const [bodyType, body, sent, type] of bodies) {
    it(`POST with a ${bodyType} body (${JSON.stringify(body)})`, async () => {
      const out = await run(http({ method: "POST", url: `${standinUrl()}/echo`, bodyType, body }), { question: "hi" }, opts());
      expect(out.text).toBe(`POST ${sent}`);
      expect(outputOf(out.executedData, "httpAgentflow_0")!.http.data.headers["content-type"]).toBe(type);
    });
  }

  it("POST with a formData body sends multipart fields", async () => {
    const out = await run(
      http({ method: "PUT", url: `${standinUrl()}/echo`, bodyType: "formData", body: [{ key: "field", value: "v1" }] }),
      { question: "hi" },
      opts(),
    );
    const data = outputOf(out.executedData, "httpAgentflow_0")!.http.data;
    expect(data.method).toBe("PUT");
    expect(data.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(data.body).toMatch(/name="field"\r\n\r\nv1/);
  });

  it("credentials: bearer token, basic auth, an API key header", async () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ["httpBearerToken", { token: "tok-1" }, "authorization", "Bearer tok-1"],
      ["httpBasicAuth", { basicAuthUsername: "ada", basicAuthPassword: "pw" }, "authorization", `Basic ${btoa("ada:pw")}`],
      ["httpApiKey", { key: "X-Api-Key", value: "k-9" }, "x-api-key", "k-9"],
    ];
    for (const [name, data, header, value] of cases) {
      const id = await credential(name, data);
      const g = graph(
        [start(), node("httpAgentflow_0", { url: `${standinUrl()}/echo` }, { credential: id })].map((n) =>
          n.id === "httpAgentflow_0" ? { ...n, data: { ...n.data, credential: id } } : n,
        ),
        [edge("startAgentflow_0", "httpAgentflow_0")],
      );
      const out = await run(g, { question: "q" }, opts());
      expect(outputOf(out.executedData, "httpAgentflow_0")!.http.data.headers[header]).toBe(value);
    }
  });

  it("text and base64 response types", async () => {
    const out = await run(
      graph(
        [start(), node("httpAgentflow_0", { url: `${standinUrl()}/echo`, responseType: "base64" })],
        [edge("startAgentflow_0", "httpAgentflow_0")],
      ),
      { question: "q" },
      opts(),
    );
    const b64 = outputOf(out.executedData, "httpAgentflow_0")!.http.data as string;
    expect(JSON.parse(atob(b64)).method).toBe("GET");
    const text = await run(
      graph(
        [start(), node("httpAgentflow_0", { url: `${standinUrl()}/echo`, responseType: "text" })],
        [edge("startAgentflow_0", "httpAgentflow_0")],
      ),
      { question: "q" },
      opts(),
    );
    expect(typeof outputOf(text.executedData, "httpAgentflow_0")!.http.data).toBe("string");
  });

  it("refused URLs (loopback without OUTBOUND_ALLOW, file:), an empty URL, a 404 answer and a bad JSON body are clear errors", async () => {
    const one = async (inputs: Record<string, unknown>, env = false) =>
      run(
        graph([start(), node("httpAgentflow_0", inputs)], [edge("startAgentflow_0", "httpAgentflow_0")]),
        { question: "q" },
        env ? opts() : {},
      );
    expect(await one({ url: `${standinUrl()}/echo` })).toMatchObject({
      state: "ERROR",
      errorStatus: 400,
      error: expect.stringMatching(/Outbound request refused: .*loopback/),
    });
    expect(await one({ url: "file:///etc/passwd" })).toMatchObject({
      errorStatus: 400,
      error: expect.stringMatching(/only http and https/),
    });
    expect(await one({ url: "" })).toMatchObject({ errorStatus: 400, error: "httpAgentflow_0 (httpAgentflow_0) needs a URL" });
    expect(await one({ url: `${standinUrl()}/echo?status=404` }, true)).toMatchObject({
      errorStatus: 502,
      error: expect.stringMatching(/answered 404/),
    });
    expect(await one({ method: "POST", url: `${standinUrl()}/echo`, bodyType: "json", body: "{nope" }, true)).toMatchObject({
      errorStatus: 400,
      error: expect.stringMatching(/the JSON body is not valid JSON/),
    });
  });
});

describe("Execute Flow", () => {
  const exec = (flowId: string, inputs: Record<string, unknown> = {}) =>
    graph(
      [
        start(),
        node(
          "executeFlowAgentflow_0",
          {
            executeFlowSelectedFlow: flowId,
            executeFlowInput: "Do {{ question }}",
            executeFlowOverrideConfig: '{"temperature": 0}',
            ...inputs,
          },
          { label: "Sub flow" },
        ),
      ],
      [edge("startAgentflow_0", "executeFlowAgentflow_0")],
    );

  it("runs the other flow through the runFlow port with the same chatId and the call stack; streams its answer", async () => {
    const out = await run(
      exec("other-flow", { executeFlowUpdateState: [{ key: "sub", value: "{{ output }}" }] }),
      { question: "it", chatId: "c-9", sessionId: "c-9", chatflowId: "me", streaming: true },
      {
        runFlow: async (_id, call) => ({ text: `callee got ${call.question}`, usedTools: [{ tool: "t", toolInput: {}, toolOutput: "o" }] }),
      },
    );
    expect(out.text).toBe("callee got Do it");
    expect(out.rec.calls).toEqual([
      { flowId: "other-flow", call: { question: "Do it", chatId: "c-9", overrideConfig: { temperature: 0 }, callStack: ["me"] } },
    ]);
    expect(out.rec.tokens()).toBe("callee got Do it");
    expect(out.rec.frames.some((f) => f.event === "usedTools")).toBe(true);
    expect(out.executedData.at(-1)!.data.state).toEqual({ sub: "callee got Do it" });
    expect(out.executedData.at(-1)!.data.chatHistory).toEqual([
      { role: "user", content: "Do it" },
      {
        role: "user",
        content: "callee got Do it",
        name: "sub_flow",
        additional_kwargs: { usedTools: [{ tool: "t", toolInput: {}, toolOutput: "o" }] },
      },
    ]);
  });

  it("refuses calling itself and a flow already on the call stack", async () => {
    const self = await run(exec("me"), { question: "q", chatflowId: "me" });
    expect(self).toMatchObject({
      state: "ERROR",
      errorStatus: 400,
      error: "Sub flow (executeFlowAgentflow_0): a flow cannot execute itself (me)",
    });
    const cycle = await run(exec("a"), { question: "q", chatflowId: "b", callStack: ["a"] });
    expect(cycle.error).toBe("Sub flow (executeFlowAgentflow_0): executing a would make a cycle (a → b → a)");
    expect(cycle.rec.calls).toEqual([]);
  });

  it("the callee's failure fails the node with its status", async () => {
    const { ApiError } = await import("../../src/errors");
    const out = await run(
      exec("other"),
      { question: "q" },
      {
        runFlow: async () => {
          throw new ApiError(404, "Chatflow other not found");
        },
      },
    );
    expect(out).toMatchObject({ state: "ERROR", errorStatus: 404, error: "Chatflow other not found" });
  });
});

describe("Direct Reply", () => {
  it("answers its resolved message as one token", async () => {
    const out = await run(
      graph(
        [start(), directReply("directReplyAgentflow_0", "<p>You said <strong>{{ question }}</strong></p>")],
        [edge("startAgentflow_0", "directReplyAgentflow_0")],
      ),
      { question: "hi", streaming: true },
    );
    expect(out.text).toBe("You said **hi**");
    expect(out.rec.frames.filter((f) => f.event === "token")).toEqual([{ event: "token", data: "You said **hi**" }]);
  });

  it("a model request is recorded by the stand-in (sanity of the test setup)", async () => {
    const m = marker();
    await run(graph([start(), llm("llmAgentflow_0")], [edge("startAgentflow_0", "llmAgentflow_0")]), { question: m });
    expect(await requestsWith(m)).toHaveLength(1);
  });
});
