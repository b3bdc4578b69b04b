// CRUD scenarios: the /ping floor, lists, creates, a filtered chat history, a single read.
// A scenario is an object:
//   name                  the row label
//   seedSql?(ctx)         SQL to load straight into local D1 before the server starts (optional)
//   setup?(ctx)           runs against the live server before measuring; a 404 from the API (a
//                         route not built yet) skips the scenario with its message
//   request(ctx, i)       the i-th request: {method, path, body?} (or url instead of path: another
//                         server); i is unique within a scenario
//                         (warm-up requests included)
//   measure?(ctx)         instead of the request loop: measures the scenario itself and answers
//                         {requests, failures, ...figures} (streaming and document scenarios)
import { randomUUID } from "node:crypto";
import { expectOk, inParallel } from "../load.mjs";

// Fixtures

/** A realistic small Flowise graph (chat model + memory + conversation chain), about 2 KB. */
export function flowData(n) {
  const node = (id, label, name, type, category, baseClasses, x, y, inputs) => ({
    id,
    position: { x, y },
    type: "customNode",
    width: 300,
    height: 480,
    data: {
      id,
      label,
      version: 2,
      name,
      type,
      baseClasses,
      category,
      inputs,
      outputAnchors: [{ id: `${id}-output-${name}-${baseClasses.join("|")}`, name, label, type: baseClasses.join(" | ") }],
      outputs: {},
    },
    selected: false,
  });
  const nodes = [
    node("chatOpenAI_0", "ChatOpenAI", "chatOpenAI", "ChatOpenAI", "Chat Models", ["ChatOpenAI", "BaseChatModel"], 400, 100, {
      modelName: "gpt-4o-mini",
      temperature: 0.7,
      maxTokens: "",
      streaming: true,
      basepath: "",
    }),
    node("bufferMemory_0", "Buffer Memory", "bufferMemory", "BufferMemory", "Memory", ["BufferMemory", "BaseMemory"], 400, 600, {
      sessionId: "",
      memoryKey: "chat_history",
    }),
    node(
      "conversationChain_0",
      "Conversation Chain",
      "conversationChain",
      "ConversationChain",
      "Chains",
      ["ConversationChain", "LLMChain", "BaseChain"],
      900,
      300,
      {
        model: "{{chatOpenAI_0.data.instance}}",
        memory: "{{bufferMemory_0.data.instance}}",
        systemMessagePrompt: `You are a helpful assistant for benchmark flow number ${n}. Answer briefly and politely.`,
      },
    ),
  ];
  const edge = (source, target, handle) => ({
    source,
    sourceHandle: `${source}-output`,
    target,
    targetHandle: `${target}-input-${handle}`,
    type: "buttonedge",
    id: `${source}-${target}-${handle}`,
  });
  const edges = [edge("chatOpenAI_0", "conversationChain_0", "model"), edge("bufferMemory_0", "conversationChain_0", "memory")];
  return JSON.stringify({ nodes, edges, viewport: { x: 0, y: 0, zoom: 0.8 } });
}

const sqlString = (s) => (s === null || s === undefined ? "NULL" : `'${String(s).replaceAll("'", "''")}'`);

const MESSAGES = 5000;
const CHAT_IDS = 100;
const MESSAGE_DAY0 = Date.parse("2026-11-01T00:00:00.000Z");
const MESSAGE_STEP_MS = 5 * 60 * 1000; // 5,000 messages five minutes apart: about 17 days
const RANGE = { startDate: "2026-11-04T00:00:00.000Z", endDate: "2026-11-14T00:00:00.000Z" };

export const crudScenarios = [
  {
    // The floor: the server's own request path (socket → workerd → the worker) with no D1 and no auth.
    // What an endpoint costs edgeflow is its figure minus this one.
    name: "GET /ping (floor: no auth, no D1)",
    request: () => ({ method: "GET", path: "/ping" }),
  },
  {
    name: "GET /chatflows (200 stored)",
    async setup(ctx) {
      const probe = await ctx.api("GET", "/chatflows");
      expectOk(probe, "GET /chatflows");
      const existing = Array.isArray(probe.json) ? probe.json.length : 0;
      await inParallel(
        Array.from({ length: Math.max(0, 200 - existing) }, (_, i) => i),
        8,
        async (i) => {
          expectOk(await ctx.api("POST", "/chatflows", { name: `bench flow ${i}`, flowData: flowData(i) }), "POST /chatflows");
        },
      );
      const list = expectOk(await ctx.api("GET", "/chatflows"), "GET /chatflows");
      return `${Array.isArray(list) ? list.length : "?"} chatflows, flowData ${flowData(0).length} B each`;
    },
    request: () => ({ method: "GET", path: "/chatflows" }),
  },
  {
    name: "GET /chatflows/{id} (one record, ~2 KB flowData)",
    async setup(ctx) {
      this.id = expectOk(await ctx.api("POST", "/chatflows", { name: "bench read one", flowData: flowData(4242) }), "POST /chatflows").id;
    },
    request() {
      return { method: "GET", path: `/chatflows/${this.id}` };
    },
  },
  {
    name: "POST /variables",
    async setup(ctx) {
      this.run = randomUUID().slice(0, 8);
      expectOk(await ctx.api("POST", "/variables", { name: `bench_${this.run}_setup`, value: "x", type: "static" }), "POST /variables");
    },
    request(_ctx, i) {
      return { method: "POST", path: "/variables", body: { name: `bench_${this.run}_${i}`, value: `value ${i}`, type: "static" } };
    },
  },
  {
    name: `GET /chatmessage/{id} (${MESSAGES} stored, chatId + DESC + date range)`,
    chatflowId: randomUUID(),
    chatIds: Array.from({ length: CHAT_IDS }, () => randomUUID()),
    seedSql() {
      // Messages alternate user / API within each chat; the chats interleave over ~17 days.
      const rows = [];
      for (let m = 0; m < MESSAGES; m++) {
        const chatId = this.chatIds[Math.floor(m / 2) % CHAT_IDS];
        const user = m % 2 === 0;
        const created = new Date(MESSAGE_DAY0 + m * MESSAGE_STEP_MS).toISOString();
        const content = user
          ? `Question ${m}: how do I configure the retriever for document store ${m % 17}?`
          : `Answer ${m}: open the document store, choose a loader and a splitter, then upsert. The retriever uses the top 4 chunks by similarity.`;
        rows.push(
          `(${[randomUUID(), user ? "userMessage" : "apiMessage", this.chatflowId, content, "EXTERNAL", chatId, chatId, null, created].map(sqlString).join(", ")})`,
        );
      }
      const statements = [];
      for (let i = 0; i < rows.length; i += 100) {
        statements.push(
          "INSERT INTO chat_message (id, role, chatflowid, content, chatType, chatId, sessionId, memoryType, createdDate) VALUES\n" +
            rows.slice(i, i + 100).join(",\n") +
            ";",
        );
      }
      return statements.join("\n");
    },
    async setup(ctx) {
      // The messages were loaded before the server started, under an id chosen here; the
      // chatflow is created through the API with that id (a create may carry its own id).
      const created = expectOk(
        await ctx.api("POST", "/chatflows", { id: this.chatflowId, name: "bench chat history", flowData: flowData(9999) }),
        "POST /chatflows",
      );
      if (created?.id !== this.chatflowId) {
        // The server chose its own id: move the seeded messages over (D1 is written while the
        // server is stopped, as for the seeding itself).
        ctx.log(`  chatflow id ${this.chatflowId} was not kept (got ${created?.id}); moving the seeded messages`);
        await ctx.withServerStopped(() =>
          ctx.d1Execute(`UPDATE chat_message SET chatflowid = ${sqlString(created.id)} WHERE chatflowid = ${sqlString(this.chatflowId)};`),
        );
        this.chatflowId = created.id;
      }
      const sample = expectOk(await ctx.api("GET", this.path(0)), "GET /chatmessage/{id}");
      const count = Array.isArray(sample) ? sample.length : Array.isArray(sample?.data) ? sample.data.length : "?";
      return `${count} messages per answer (one chat of ${MESSAGES / CHAT_IDS}, inside the date range)`;
    },
    path(i) {
      const q = new URLSearchParams({ chatId: this.chatIds[i % CHAT_IDS], order: "DESC", ...RANGE });
      return `/chatmessage/${this.chatflowId}?${q}`;
    },
    request(_ctx, i) {
      return { method: "GET", path: this.path(i) };
    },
  },
  {
    name: "GET /tools/{id} (baseline)",
    async setup(ctx) {
      const tool = expectOk(
        await ctx.api("POST", "/tools", {
          name: "bench_weather",
          description: "Returns the weather for a city",
          color: "linear-gradient(rgb(117,118,129), rgb(230,10,250))",
          schema: JSON.stringify([{ id: 0, property: "city", description: "City name", type: "string", required: true }]),
          func: "const res = await fetch(`https://example.com/weather?city=${$city}`);\nreturn await res.text();",
        }),
        "POST /tools",
      );
      this.toolId = tool.id;
    },
    request() {
      return { method: "GET", path: `/tools/${this.toolId}` };
    },
  },
];
