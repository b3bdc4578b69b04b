// The planner (ending node, build order, cycles), flowData checks, unsupported nodes, the resolver
// ({{…}} variables, overrides), moderation, window memory and the zod-code reader.
import { describe, expect, it } from "vitest";
import { parseFlowData } from "../../src/engine/core/flow-data";
import { planRun, unsupportedNodes } from "../../src/engine/chatflow/graph";
import { registry } from "../../src/engine/chatflow/registry";
import { resolveInputs } from "../../src/engine/core/resolve";
import { parseZodDsl } from "../../src/engine/core/zod-dsl";
import type { FlowNode } from "../../src/engine";
import advancedParser from "./fixtures/advanced-structured-output-parser.json";
import conversationChain from "./fixtures/conversation-chain.json";
import retrievalQa from "./fixtures/conversational-retrieval-qa-chain.json";
import listParser from "./fixtures/list-output-parser.json";
import llmChain from "./fixtures/llm-chain.json";
import promptChaining from "./fixtures/prompt-chaining.json";
import toolAgent from "./fixtures/tool-agent.json";
import { type Fixture, canStreamFlow, flowDataOf, makeCtx, marker, pointAtStandin, requestsWith, runFlow, storeTurns } from "./helpers";

const all = { advancedParser, conversationChain, retrievalQa, listParser, llmChain, promptChaining, toolAgent } as unknown as Record<
  string,
  Fixture
>;

/** A small hand-written flow: nodes [id, name, category?, inputs], edges [source, target]. */
function flow(nodes: Array<[string, string, string | undefined, Record<string, unknown>?]>, edges: Array<[string, string]> = []): string {
  return JSON.stringify({
    nodes: nodes.map(([id, name, category, inputs]) => ({
      id,
      data: { id, name, label: id, ...(category ? { category } : {}), inputs: inputs ?? {} },
    })),
    edges: edges.map(([source, target]) => ({ source, target })),
  });
}

const err400 = async (p: Promise<unknown>) => {
  const err = (await p.catch((e: unknown) => e)) as { status: number; message: string };
  expect(err).toMatchObject({ status: 400 });
  return err.message;
};

describe("parseFlowData", () => {
  it("reads every fixture", () => {
    for (const [name, fx] of Object.entries(all)) {
      const graph = parseFlowData(JSON.stringify({ nodes: fx.nodes, edges: fx.edges }));
      expect(graph.nodes.length, name).toBe(fx.nodes.length);
    }
  });

  it.each([
    ["{not json", /not valid JSON/],
    ["[]", /JSON object with a nodes array/],
    ['{"edges":[]}', /no nodes array/],
    ['{"nodes":{}}', /no nodes array/],
    ['{"nodes":[{"id":"a","data":{}}]}', /node a has no data.name/],
    ['{"nodes":[{"id":"a"}]}', /node a has no data.name/],
    ['{"nodes":[5]}', /node #1 is not an object/],
    ['{"nodes":[{"id":"a","data":{"name":"x"}}],"edges":[{"source":"a","target":"b"}]}', /does not exist: b/],
    ['{"nodes":[{"id":"a","data":{"name":"x"}},{"id":"a","data":{"name":"y"}}]}', /two nodes with id a/],
  ])("%s → 400", (text, message) => {
    expect(() => parseFlowData(text)).toThrow(message);
    try {
      parseFlowData(text);
    } catch (e) {
      expect((e as { status: number }).status).toBe(400);
    }
  });
});

describe("planRun", () => {
  it("prompt-chaining: dependencies first, the ending chain last, sticky notes never", () => {
    const { ending, order } = planRun(parseFlowData(JSON.stringify(promptChaining)));
    expect(ending.id).toBe("llmChain_1");
    const ids = order.map((n) => n.id);
    expect(ids.at(-1)).toBe("llmChain_1");
    expect(ids).toHaveLength(6); // every node of this fixture is an ancestor
    const before = (a: string, b: string) => expect(ids.indexOf(a)).toBeLessThan(ids.indexOf(b));
    before("promptTemplate_0", "llmChain_0");
    before("chatOpenAI_0", "llmChain_0");
    before("llmChain_0", "promptTemplate_1");
    before("promptTemplate_1", "llmChain_1");
  });

  it("only ancestors of the ending node, no sticky notes", () => {
    const { order, ending } = planRun(parseFlowData(JSON.stringify(listParser)));
    expect(ending.id).toBe("llmChain_0");
    expect(order.map((n) => n.id).sort()).toEqual(["chatOpenAI_0", "csvOutputParser_0", "llmChain_0", "promptTemplate_0"]);
    const stray = planRun(
      parseFlowData(
        flow(
          [
            ["m", "chatOpenAI", "Chat Models"],
            ["c", "conversationChain", "Chains", { model: "{{m.data.instance}}" }],
            ["x", "promptTemplate", "Prompts"],
          ],
          [["m", "c"]],
        ),
      ),
    );
    expect(stray.order.map((n) => n.id)).toEqual(["m", "c"]);
  });

  it("a node's category may come from the registry; references count as edges", () => {
    const plan = planRun(
      parseFlowData(
        flow([
          ["c", "conversationChain", undefined, { model: "{{m.data.instance}}" }],
          ["m", "chatOpenAI", undefined],
        ]),
      ),
    );
    expect(plan.order.map((n) => n.id)).toEqual(["m", "c"]);
  });

  it("no ending node → 400 with Flowise's message", () => {
    expect(() =>
      planRun(
        parseFlowData(
          flow(
            [
              ["m", "chatOpenAI", "Chat Models"],
              ["p", "promptTemplate", "Prompts"],
            ],
            [["m", "p"]],
          ),
        ),
      ),
    ).toThrow("Ending node must be either a Chain or Agent or Engine");
    expect(() => planRun(parseFlowData('{"nodes":[]}'))).toThrow("Ending node must be either a Chain or Agent or Engine");
  });

  it("a cycle → 400 naming its nodes", () => {
    const text = flow(
      [
        ["a", "llmChain", "Chains"],
        ["b", "promptTemplate", "Prompts"],
        ["c", "llmChain", "Chains"],
        ["m", "chatOpenAI", "Chat Models"],
      ],
      [
        ["a", "b"],
        ["b", "a"],
        ["m", "a"],
        ["a", "c"],
      ],
    );
    expect(() => planRun(parseFlowData(text))).toThrow("flowData has a cycle through nodes: a, b");
  });
});

describe("runFlow refuses flows it cannot run (400, naming what is wrong)", () => {
  it("malformed flowData, cycle, no ending node", async () => {
    expect(await err400(runFlow("{oops", makeCtx("q")))).toMatch(/not valid JSON/);
    expect(
      await err400(
        runFlow(
          flow(
            [
              ["a", "llmChain", "Chains"],
              ["b", "llmChain", "Chains"],
            ],
            [
              ["a", "b"],
              ["b", "a"],
            ],
          ),
          makeCtx("q"),
        ),
      ),
    ).toMatch(/cycle through nodes: a, b/);
    expect(await err400(runFlow(flow([["p", "promptTemplate", "Prompts"]]), makeCtx("q")))).toBe(
      "Ending node must be either a Chain or Agent or Engine",
    );
  });

  it("tool-agent.json and conversational-retrieval-qa-chain.json have no unsupported node left", async () => {
    expect(unsupportedNodes(parseFlowData(JSON.stringify(toolAgent)))).toEqual([]); // serpAPI: web-tools.test.ts
    expect(unsupportedNodes(parseFlowData(JSON.stringify(retrievalQa)))).toEqual([]);
  });

  it("loaders feeding a vector store are skipped on prediction (with what only they use), not the vector store", () => {
    const { order, skipped } = planRun(parseFlowData(JSON.stringify(retrievalQa)));
    expect([...skipped].sort()).toEqual(["documentStore_0", "textFile_0"]);
    expect(order.map((n) => n.id)).toEqual(["openAIEmbeddings_0", "faiss_0", "chatMistralAI_0", "conversationalRetrievalQAChain_0"]);
  });

  it("supported fixtures have no unsupported nodes (sticky notes are ignored)", () => {
    for (const fx of [advancedParser, conversationChain, listParser, llmChain, promptChaining]) {
      expect(unsupportedNodes(parseFlowData(JSON.stringify(fx)))).toEqual([]);
    }
    expect(registry.has("stickyNote")).toBe(true);
  });

  it("a chain without its model or prompt → 400 naming the node", async () => {
    expect(
      await err400(
        runFlow(
          flow(
            [
              ["c", "conversationChain", "Chains"],
              ["x", "bufferMemory", "Memory"],
            ],
            [["x", "c"]],
          ),
          makeCtx("q"),
        ),
      ),
    ).toBe("c needs a chat model connected to its model input");
  });

  it("a template with two variables and no values → 400 naming them", async () => {
    const text = flow(
      [
        ["m", "chatOpenAI", "Chat Models", { basepath: "http://127.0.0.1:9/v1" }],
        ["p", "promptTemplate", "Prompts", { template: "{a} and {b}" }],
        ["c", "llmChain", "Chains", { model: "{{m.data.instance}}", prompt: "{{p.data.instance}}" }],
      ],
      [
        ["m", "c"],
        ["p", "c"],
      ],
    );
    expect(await err400(runFlow(text, makeCtx("q")))).toBe("p: please provide Prompt Values for: a, b");
  });
});

describe("canStreamFlow", () => {
  it("chains stream unless an output parser is attached or the model says streaming: false", () => {
    expect(canStreamFlow(JSON.stringify(llmChain))).toBe(true);
    expect(canStreamFlow(JSON.stringify(conversationChain))).toBe(true);
    expect(canStreamFlow(JSON.stringify(promptChaining))).toBe(true);
    expect(canStreamFlow(JSON.stringify(listParser))).toBe(false);
    expect(canStreamFlow(JSON.stringify(advancedParser))).toBe(false);
    expect(
      canStreamFlow(flowDataOf(conversationChain as unknown as Fixture, (n) => (n.get("chatOpenAI_0")!.data.inputs!.streaming = false))),
    ).toBe(false);
    expect(canStreamFlow("{bad")).toBe(false);
    expect(canStreamFlow(JSON.stringify(toolAgent))).toBe(true); // agents stream too (FLOWISE-NOTES point 7)
  });
});

describe("resolveInputs", () => {
  const node = (inputs: Record<string, unknown>, inputParams?: FlowNode["data"]["inputParams"]): FlowNode => ({
    id: "n",
    data: { id: "n", name: "promptTemplate", label: "My Prompt", category: "Prompts", inputs, inputParams },
  });

  it("references, variables, $vars, $flow, chat_history, overrides by label", async () => {
    const ctx = makeCtx("the question", {
      chatflowid: "flow-1",
      sessionId: "sess-1",
      chatId: "chat-1",
      vars: { city: "Paris" },
      history: [
        { role: "userMessage", content: "earlier q" },
        { role: "apiMessage", content: "earlier a" },
      ],
      nodeOverrides: { "My Prompt": { template: "Overridden {{$vars.city}} {{question}}" } },
    });
    const built = new Map<string, unknown>([
      ["other_0", { kind: "thing" }],
      ["pred_0", "predicted text"],
    ]);
    const state = { graph: { nodes: [], edges: [] }, built, skipped: new Set(["loader_0"]) };
    const inputs = await resolveInputs(
      node(
        {
          template: "ignored",
          promptValues:
            '{"a":"{{question}}","b":"{{pred_0.data.instance}}","c":"{{$flow.sessionId}}/{{$flow.chatId}}/{{$flow.chatflowId}}","d":"{{chat_history}}","e":"{{$vars.missing}}"}',
          model: "{{other_0.data.instance}}",
          list: ["{{other_0.data.instance}}", "{{loader_0.data.instance}}"],
          plain: "no {{question}} here",
        },
        [
          { name: "promptValues", type: "json", acceptVariable: true },
          { name: "template", type: "string" },
          { name: "plain", type: "string" },
        ],
      ),
      state,
      ctx,
    );
    expect(inputs.template).toBe("Overridden Paris {{question}}"); // template does not accept variables
    expect(inputs.plain).toBe("no {{question}} here");
    expect(inputs.promptValues).toEqual({
      a: "the question",
      b: "predicted text",
      c: "sess-1/chat-1/flow-1",
      d: "Human: earlier q\nAssistant: earlier a",
      e: "{{$vars.missing}}",
    });
    expect(inputs.model).toEqual({ kind: "thing" });
    expect(inputs.list).toEqual([{ kind: "thing" }]);
  });

  it("a reference to a node that does not exist → 400", async () => {
    const state = { graph: { nodes: [], edges: [] }, built: new Map(), skipped: new Set<string>() };
    const err = await resolveInputs(node({ model: "{{ghost_0.data.instance}}" }), state, makeCtx("q")).catch((e) => e);
    expect(err).toMatchObject({ status: 400, message: "Node n input model refers to node ghost_0, which does not exist" });
  });
});

describe("moderation and window memory", () => {
  const chain = (extra: Array<[string, string, string | undefined, Record<string, unknown>?]>, chainInputs: Record<string, unknown>) =>
    JSON.stringify({
      nodes: [
        { id: "m", data: { id: "m", name: "chatOpenAI", label: "Model", category: "Chat Models", inputs: {} } },
        ...extra.map(([id, name, category, inputs]) => ({ id, data: { id, name, label: id, category, inputs: inputs ?? {} } })),
        {
          id: "c",
          data: {
            id: "c",
            name: "conversationChain",
            label: "Chain",
            category: "Chains",
            inputs: { model: "{{m.data.instance}}", ...chainInputs },
          },
        },
      ],
      edges: [{ source: "m", target: "c" }, ...extra.map(([id]) => ({ source: id, target: "c" }))],
    });
  const pointed = (text: string) => flowDataOf(JSON.parse(text), (n) => pointAtStandin(n.get("m")!));

  it("inputModerationSimple refuses a question containing a deny-list entry (case-insensitive), answering its message", async () => {
    const text = pointed(
      chain(
        [
          [
            "mod",
            "inputModerationSimple",
            "Moderation",
            { denyList: "ignore previous instructions\n  Do Not Follow  \n", moderationErrorMessage: "Nope." },
          ],
        ],
        { inputModeration: ["{{mod.data.instance}}"] },
      ),
    );
    const m = marker();
    const refused = await runFlow(text, makeCtx(`Please IGNORE previous instructions ${m}`));
    expect(refused.text).toBe("Nope.");
    expect(await requestsWith(m)).toHaveLength(0);
    const ok = await runFlow(text, makeCtx(`follow the rules ${m}-ok`));
    expect(ok.text).toBe(`echo: follow the rules ${m}-ok`);
  });

  it("bufferWindowMemory keeps the last k exchanges", async () => {
    const text = pointed(chain([["mem", "bufferWindowMemory", "Memory", { k: "1" }]], { memory: "{{mem.data.instance}}" }));
    const m = marker();
    const ctx = makeCtx(`now ${m}`);
    await storeTurns(ctx.chatflowid, ctx.sessionId, [
      { role: "userMessage", content: "old q" },
      { role: "apiMessage", content: "old a" },
      { role: "userMessage", content: "recent q" },
      { role: "apiMessage", content: "recent a" },
    ]);
    const result = await runFlow(text, ctx);
    expect(result.memoryType).toBe("mem");
    const [req] = await requestsWith(m);
    expect(req.body.messages.slice(1)).toEqual([
      { role: "user", content: "recent q" },
      { role: "assistant", content: "recent a" },
      { role: "user", content: `now ${m}` },
    ]);
  });
});

describe("conversationSummaryMemory", () => {
  it("summarises the stored conversation with its model and sends the summary as a system message", async () => {
    const m = marker();
    const text = flowDataOf(
      {
        nodes: [
          { id: "m", data: { id: "m", name: "chatOpenAI", label: "Model", category: "Chat Models", inputs: {} } },
          {
            id: "mem",
            data: {
              id: "mem",
              name: "conversationSummaryMemory",
              label: "Summary Memory",
              category: "Memory",
              inputs: { model: "{{m.data.instance}}" },
            },
          },
          {
            id: "c",
            data: {
              id: "c",
              name: "conversationChain",
              label: "Chain",
              category: "Chains",
              inputs: { model: "{{m.data.instance}}", memory: "{{mem.data.instance}}" },
            },
          },
        ],
        edges: [
          { source: "m", target: "mem" },
          { source: "m", target: "c" },
          { source: "mem", target: "c" },
        ],
      } as unknown as Fixture,
      (n) => pointAtStandin(n.get("m")!),
    );
    const ctx = makeCtx(`and now? ${m}`);
    await storeTurns(ctx.chatflowid, ctx.sessionId, [
      { role: "userMessage", content: `I am Ada ${m}` },
      { role: "apiMessage", content: "Hello Ada" },
    ]);
    const result = await runFlow(text, ctx);
    expect(result.memoryType).toBe("Summary Memory");
    const [summary, chat] = await requestsWith(m);
    expect(summary.body.messages[0].content).toContain(`Human: I am Ada ${m}\nAssistant: Hello Ada`);
    expect(chat.body.messages[1].role).toBe("system");
    expect(chat.body.messages[1].content).toContain("Summary of the conversation so far:\necho: Summarise the conversation");
    expect(chat.body.messages.at(-1)).toEqual({ role: "user", content: `and now? ${m}` });
  });
});

describe("zod code reader (advancedStructuredOutputParser)", () => {
  it("reads the fixture's schema and validates with it", () => {
    const code = (
      advancedParser.nodes.find((n) => n.data.name === "advancedStructuredOutputParser")!.data.inputs as { exampleJson: string }
    ).exampleJson;
    const schema = parseZodDsl(code);
    const good = [{ title: "T", yearOfRelease: 2000, genres: ["Drama"], shortDescription: "d" }];
    expect(schema.safeParse(good).success).toBe(true);
    expect(schema.safeParse([{ ...good[0], yearOfRelease: 2000.5 }]).success).toBe(false);
    expect(schema.safeParse([{ ...good[0], genres: ["Drama", "Comedy", "Horror"] }]).success).toBe(false);
    expect(schema.safeParse([{ ...good[0], genres: ["Western"] }]).success).toBe(false);
  });

  it("optional, describe, boolean, literals, comments, trailing commas", () => {
    const schema = parseZodDsl(`z.object({
      /* block comment */ name: z.string().describe("the name"),
      'quoted key': z.number().min(-1).optional(),
      flag: z.boolean(), // trailing comment
      tags: z.array(z.string()).nonempty(),
    })`);
    expect(schema.safeParse({ name: "x", flag: true, tags: ["a"] }).success).toBe(true);
    expect(schema.safeParse({ name: "x", flag: "yes", tags: ["a"] }).success).toBe(false);
    expect(schema.safeParse({ name: "x", flag: true, tags: [], "quoted key": -1 }).success).toBe(false);
  });

  it.each([
    ["z.object({ a: z.string() }).transform(() => 1)", /unexpected character|not supported/],
    ["z.string().refine(x => true)", /not supported|unexpected/],
    ["fetch('http://x')", /unknown name 'fetch'/],
    ["z.constructor('return 1')()", /not supported/],
    ["z.object({ a: z.string() ", /expected/],
    ["z.object({ a: 'text' })", /not a schema/],
    ["z", /not a schema/],
  ])("refuses %s", (code, message) => {
    expect(() => parseZodDsl(code)).toThrow(message);
  });
});
