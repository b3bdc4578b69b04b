// Issue 25: Flowise 3.1.4's export file imported as it is — every record kind, every id kept; the
// imported flows run; a bad record imports nothing; importing again never duplicates (the file wins).
import { describe, expect, it, vi } from "vitest";
import { call, expectError, json } from "../helpers";
import { count, freshExport, importFile, stagedRows } from "./helpers";

// An export holds the whole deployment, and the suite shares one database: it grows with the suite.
vi.setConfig({ testTimeout: 60_000 });

describe("POST /export-import/import", () => {
  it("imports a Flowise export of every record kind under the same ids", async () => {
    const { file, ids } = await freshExport();
    // A section of a later Flowise, and a flow bound to a Flowise API key that does not exist here.
    const flowiseKey = crypto.randomUUID();
    (file.ChatFlow[1] as any).apikeyid = flowiseKey;
    (file as any).DatasetRow = [{ id: crypto.randomUUID() }, { id: crypto.randomUUID() }];
    const res = await importFile(file);
    expect(res.status).toBe(200);
    const body = await res.json<any>();
    expect(body).toMatchObject({
      message: "success",
      imported: {
        chatflows: 5,
        assistants: 2,
        tools: 1,
        variables: 2,
        documentStores: 1,
        documentStoreLoaders: 2,
        chunks: 3,
        executions: 1,
        chatMessages: 4,
        feedback: 1,
        mcpServers: 1,
        customTemplates: 2,
      },
      replaced: { chatflows: 0, chunks: 0, customTemplates: 0 },
    });
    expect(body.skipped).toEqual({ DatasetRow: 2 });
    expect(body.warnings).toEqual([
      expect.objectContaining({
        id: ids.memoryFlow,
        warning: expect.stringContaining(`apikeyid ${flowiseKey} is not an API key of this deployment`),
      }),
    ]);
    expect((await json("GET", `/chatflows/${ids.memoryFlow}`)).apikeyid).toBe(flowiseKey);

    const flow = await json("GET", `/chatflows/${ids.chatflow}`);
    expect(flow).toMatchObject({
      id: ids.chatflow,
      type: "CHATFLOW",
      deployed: true,
      isPublic: true,
      category: "Moved",
      chatbotConfig: '{"welcomeMessage":"Hi"}',
      createdDate: "2026-03-01T10:00:00.000Z",
    });
    expect(flow).not.toHaveProperty("workspaceId");
    expect((await json("GET", `/chatflows/${ids.agentflow}`)).type).toBe("AGENTFLOW");
    expect((await json("GET", `/chatflows/${ids.multiagent}`)).type).toBe("MULTIAGENT");
    expect((await json("GET", `/chatflows/${ids.assistantFlow}`)).type).toBe("ASSISTANT");
    expect(await json("GET", `/assistants/${ids.assistant}`)).toMatchObject({ type: "CUSTOM", details: { instruction: "Be brief." } });
    // Flowise's custom templates: listed on the marketplace's My Templates tab as Flowise shows them.
    const templates = await json<any[]>("GET", "/marketplaces/custom");
    const [flowTemplate, toolTemplate] = file.CustomTemplate as any[];
    expect(templates.find((t) => t.id === ids.template)).toMatchObject({
      name: flowTemplate.name,
      flowData: flowTemplate.flowData,
      badge: "POPULAR",
      framework: "Langchain",
      usecases: ["Customer Support"],
      type: "Chatflow",
      categories: ["Chat Models"],
      createdDate: "2026-03-01T10:00:00.000Z",
    });
    const tool = templates.find((t) => t.id === ids.toolTemplate);
    expect(tool).toMatchObject({ type: "Tool", usecases: [], iconSrc: toolTemplate.iconSrc, schema: "[]", func: toolTemplate.func });
    expect(tool).not.toHaveProperty("flowData");
    expect(await json("GET", `/assistants/${ids.openaiAssistant}`)).toMatchObject({ type: "OPENAI", details: { id: "asst_abc123" } });
    expect(await json("GET", `/tools/${ids.tool}`)).toMatchObject({ name: "todays_date_time", schema: "[]" });
    const variables = await json<any[]>("GET", "/variables");
    expect(variables.find((v) => v.id === ids.variable)).toMatchObject({ type: "static", value: "" });
    expect(variables.find((v) => v.id === ids.runtimeVariable)).toMatchObject({ type: "runtime" });

    const store = await json("GET", `/document-store/store/${ids.store}`);
    expect(store).toMatchObject({ name: expect.stringContaining("Handbook"), totalChunks: 3, status: "UPSERTED" });
    expect(JSON.parse(store.loaders).map((l: any) => [l.id, l.loaderId, l.totalChunks])).toEqual([
      [ids.textLoader, "plainText", 2],
      [ids.fileLoader, "pdfFile", 1],
    ]);
    const page = await json("GET", `/document-store/chunks/${ids.store}/${ids.textLoader}/1`);
    expect(page.chunks.map((c: any) => [c.id, c.chunkNo, JSON.parse(c.metadata).source])).toEqual([
      [ids.chunks[0], 1, "text"],
      [ids.chunks[1], 2, "text"],
    ]);

    expect(await json("GET", `/executions/${ids.execution}`)).toMatchObject({
      state: "FINISHED",
      agentflowId: ids.agentflow,
      isPublic: true,
      sessionId: ids.chatId,
    });
    expect((await call("GET", `/public-executions/${ids.execution}`, { token: null })).status).toBe(200);

    const messages = await json<any[]>("GET", `/chatmessage/${ids.chatflow}`);
    expect(messages.map((m) => [m.id, m.role, m.content])).toEqual([
      [ids.userMessage, "userMessage", "Hello there"],
      [ids.apiMessage, "apiMessage", "General Kenobi"],
    ]);
    const agentMessages = await json<any[]>("GET", `/chatmessage/${ids.agentflow}`);
    expect(agentMessages.map((m) => [m.id, m.executionId ?? null])).toEqual([
      [ids.agentUserMessage, ids.execution],
      [ids.agentApiMessage, null],
    ]);
    const feedback = await json<any[]>("GET", `/feedback/${ids.chatflow}`);
    expect(feedback).toEqual([
      expect.objectContaining({ id: ids.feedback, messageId: ids.apiMessage, rating: "THUMBS_UP", content: "spot on" }),
    ]);
    expect(await stagedRows()).toBe(0);
  });

  it("the imported chatflow, agentflow and MCP server run here (the stand-in model, the credential made under Flowise's id)", async () => {
    const { file, ids } = await freshExport();
    expect((await importFile(file)).status).toBe(200);

    const answer = await json("POST", `/prediction/${ids.chatflow}`, { body: { question: "moved in" } });
    expect(answer.text).toBe("echo: moved in");
    const agentAnswer = await json("POST", `/prediction/${ids.agentflow}`, { body: { question: "Hello" } });
    expect(agentAnswer.text).toContain("Hello");
    expect(agentAnswer.executionId).toEqual(expect.any(String));

    // The MCP token Flowise had keeps working (stored hashed here).
    const mcp = await call("POST", `/mcp/${ids.chatflow}`, {
      token: ids.mcpToken,
      headers: { accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    });
    expect(mcp.status).toBe(200);
    expect(await mcp.text()).toContain(`llm_chain_${ids.chatflow.slice(0, 8)}`);
    expect(await json("GET", `/mcp-server/${ids.chatflow}`)).toMatchObject({
      enabled: true,
      token: `${ids.mcpToken.slice(0, 4)}…${ids.mcpToken.slice(-4)}`,
    });
  });
});

describe("all or nothing", () => {
  const cases: Array<[string, (file: any, ids: any) => void, RegExp]> = [
    [
      "flowData that is not JSON",
      (f) => (f.ChatFlow[1].flowData = "{nodes: oops"),
      /ChatFlow\[1\] \(id [0-9a-f-]+, "Conversation Chain [0-9a-f]+"\): flowData: must be a JSON object/,
    ],
    ["an unknown flow type", (f) => (f.AgentFlowV2[0].type = "WORKFLOW"), /AgentFlowV2\[0\].*type/],
    [
      "a message of a chatflow that is nowhere",
      (f) => (f.ChatMessage[3].chatflowid = crypto.randomUUID()),
      /ChatMessage\[3\].*chatflow [0-9a-f-]+ is neither in the file nor stored here/,
    ],
    [
      "an execution of an agentflow that is nowhere",
      (f) => (f.Execution[0].agentflowId = crypto.randomUUID()),
      /Execution\[0\].*agentflow .* is neither in the file nor stored here/,
    ],
    [
      "feedback on a message that is nowhere",
      (f) => (f.ChatMessageFeedback[0].messageId = crypto.randomUUID()),
      /ChatMessageFeedback\[0\].*message .* is neither in the file nor stored here/,
    ],
    [
      "a chunk of a loader its store does not have",
      (f) => (f.DocumentStoreFileChunk[2].docId = crypto.randomUUID()),
      /DocumentStoreFileChunk\[2\].*is not a loader of document store/,
    ],
    ["an id twice", (f) => (f.Tool = [f.Tool[0], { ...f.Tool[0], name: "again" }]), /Tool\[1\].*another tool with id/],
    [
      "a variable name twice",
      (f) => f.Variable.push({ ...f.Variable[0], id: crypto.randomUUID() }),
      /Variable\[2\].*another variable named/,
    ],
    ["a record that is not an object", (f) => f.Tool.push("a tool"), /Tool\[1\]: must be an object/],
    ["an unknown chat type", (f) => (f.ChatMessage[0].chatType = "CARRIER_PIGEON"), /ChatMessage\[0\].*chatType/],
    ["a template whose usecases are not a list", (f) => (f.CustomTemplate[0].usecases = 5), /CustomTemplate\[0\].*: usecases: /],
    ["a flow template without flowData", (f) => delete f.CustomTemplate[0].flowData, /CustomTemplate\[0\].*: flowData: required$/],
    [
      "a tool template with neither its parts nor flowData",
      (f) => Object.assign(f.CustomTemplate[1], { iconSrc: undefined, schema: undefined, func: undefined }),
      /CustomTemplate\[1\].*: a tool template needs iconSrc, schema and func/,
    ],
    [
      "a template id twice",
      (f) => f.CustomTemplate.push({ ...f.CustomTemplate[0] }),
      /CustomTemplate\[2\].*another custom template with id/,
    ],
  ];
  for (const [what, spoil, message] of cases) {
    it(`${what}: 400 naming the record, nothing imported`, async () => {
      const { file, ids } = await freshExport();
      spoil(file, ids);
      const err = await expectError(await importFile(file), 400);
      expect(err.message).toMatch(/^Nothing was imported: /);
      expect(err.message).toMatch(message);
      expect((await call("GET", `/chatflows/${ids.chatflow}`)).status).toBe(404);
      expect((await call("GET", `/tools/${ids.tool}`)).status).toBe(404);
      expect(await count("SELECT COUNT(*) AS n FROM chat_message WHERE id = ?", ids.userMessage)).toBe(0);
      expect(await count("SELECT COUNT(*) AS n FROM custom_template WHERE id IN (?, ?)", ids.template, ids.toolTemplate)).toBe(0);
      expect(await stagedRows()).toBe(0);
    });
  }

  it("a file that is not Flowise's export: 400/415, never a 500", async () => {
    await expectError(await call("POST", "/export-import/import", { raw: "[1,2]", headers: { "content-type": "application/json" } }), 400);
    await expectError(
      await call("POST", "/export-import/import", { raw: '{"ChatFlow": [', headers: { "content-type": "application/json" } }),
      400,
    );
    await expectError(
      await call("POST", "/export-import/import", {
        raw: '{"ChatFlow": [{"id": 1}] "Tool": []}',
        headers: { "content-type": "application/json" },
      }),
      400,
    );
    await expectError(await call("POST", "/export-import/import", { raw: "", headers: { "content-type": "application/json" } }), 400);
    await expectError(await call("POST", "/export-import/import", { raw: "{}", headers: { "content-type": "text/plain" } }), 415);
    const empty = await json("POST", "/export-import/import", { body: { FileDefaultName: "ExportData.json", ChatFlow: [] } });
    expect(empty.imported.chatflows).toBe(0);
  });
});

describe("ids already present: the file wins, in one batch", () => {
  it("importing the same file twice replaces, never duplicates; an empty variable value keeps the one stored here", async () => {
    const { file, ids } = await freshExport();
    expect((await importFile(file)).status).toBe(200);
    // Changes made here after the first import…
    await json("PUT", `/chatflows/${ids.chatflow}`, { body: { name: "renamed here" } });
    await json("PUT", `/variables/${ids.variable}`, { body: { value: "eu-west" } });
    await json("PUT", `/document-store/chunks/${ids.store}/${ids.textLoader}/${ids.chunks[0]}`, { body: { pageContent: "edited here" } });
    const before = await count("SELECT COUNT(*) AS n FROM chat_flow");

    const again = await importFile(file);
    expect(again.status).toBe(200);
    const body = await again.json<any>();
    expect(body.replaced).toMatchObject({
      chatflows: 5,
      assistants: 2,
      tools: 1,
      variables: 2,
      documentStores: 1,
      chunks: 3,
      executions: 1,
      chatMessages: 4,
      feedback: 1,
      customTemplates: 2,
    });

    expect(await count("SELECT COUNT(*) AS n FROM chat_flow")).toBe(before);
    expect(await count("SELECT COUNT(*) AS n FROM custom_template WHERE id IN (?, ?)", ids.template, ids.toolTemplate)).toBe(2);
    expect((await json("GET", `/chatflows/${ids.chatflow}`)).name).toBe(file.ChatFlow[0].name);
    expect((await json<any[]>("GET", "/variables")).find((v) => v.id === ids.variable).value).toBe("eu-west");
    const page = await json("GET", `/document-store/chunks/${ids.store}/${ids.textLoader}/1`);
    expect(page.chunks[0].pageContent).toBe(file.DocumentStoreFileChunk[0].pageContent);
    expect(await count("SELECT COUNT(*) AS n FROM chat_message WHERE chatflowid = ?", ids.chatflow)).toBe(2);
    expect(await count("SELECT COUNT(*) AS n FROM document_store_file_chunk WHERE storeId = ?", ids.store)).toBe(3);
  });

  it("a variable stored here under the same name and another id gives way to the file's (its value kept)", async () => {
    const { file, ids } = await freshExport();
    const mine = await json("POST", "/variables", { body: { name: file.Variable[0].name, value: "from here" } });
    expect((await importFile(file)).status).toBe(200);
    const vars = (await json<any[]>("GET", "/variables")).filter((v) => v.name === file.Variable[0].name);
    expect(vars).toEqual([expect.objectContaining({ id: ids.variable, value: "from here" })]);
    expect(mine.id).not.toBe(ids.variable);
  });

  it("a failed re-import changes nothing", async () => {
    const { file, ids } = await freshExport();
    expect((await importFile(file)).status).toBe(200);
    await json("PUT", `/chatflows/${ids.chatflow}`, { body: { name: "kept" } });
    file.ChatMessage.push({ ...file.ChatMessage[0], id: crypto.randomUUID(), chatflowid: crypto.randomUUID() });
    await expectError(await importFile(file), 400);
    expect((await json("GET", `/chatflows/${ids.chatflow}`)).name).toBe("kept");
  });
});

describe("who may import", () => {
  it("workspace:import on a key that reaches every chatflow; others 403, no token 401", async () => {
    const { file, ids } = await freshExport();
    const newKey = async (permissions: string[], chatflows?: string[]) =>
      (await json("POST", "/apikey", { body: { keyName: "import", permissions, ...(chatflows ? { chatflows } : {}) } })).apiKey as string;
    await expectError(await importFile(file, null), 401);
    expect((await expectError(await importFile(file, await newKey(["chatflows:create", "workspace:export"])), 403)).message).toContain(
      '"workspace:import"',
    );
    const flow = (await json("POST", "/chatflows", { body: { name: "scope", flowData: "{}" } })).id;
    expect((await expectError(await importFile(file, await newKey(["workspace:import"], [flow])), 403)).message).toContain(
      "limited to some chatflows",
    );
    expect((await call("GET", `/chatflows/${ids.chatflow}`)).status).toBe(404);
    expect((await importFile(file, await newKey(["workspace:import"]))).status).toBe(200);
  });
});

describe("document stores moved in", () => {
  it("keep their chunks, which POST /document-store/vectorstore/insert puts into the vector store again (files are not in an export)", async () => {
    const { file, ids } = await freshExport();
    expect((await importFile(file)).status).toBe(200);
    const query = () =>
      json("POST", "/document-store/vectorstore/query", { body: { storeId: ids.store, query: "a PDF page about moving in" } });
    expect(
      (await expectError(await call("POST", "/document-store/vectorstore/query", { body: { storeId: ids.store, query: "moving" } }), 400))
        .message,
    ).toContain("upsert it first");

    const inserted = await json("POST", "/document-store/vectorstore/insert", { body: { storeId: ids.store } });
    expect(inserted).toMatchObject({ numAdded: 3, storeId: ids.store });
    const found = await query();
    expect(found.docs[0]).toMatchObject({
      pageContent: "A PDF page about moving in.",
      chunkNo: 1,
      metadata: expect.objectContaining({ source: "moving.pdf" }),
    });
    expect((await json("GET", `/document-store/store/${ids.store}`)).status).toBe("UPSERTED");

    // One loader again (its vectors replaced, not piled up); an unknown loader is a 404.
    expect(await json("POST", "/document-store/vectorstore/insert", { body: { storeId: ids.store, docId: ids.textLoader } })).toMatchObject(
      { numAdded: 2, numDeleted: 2 },
    );
    await expectError(
      await call("POST", "/document-store/vectorstore/insert", { body: { storeId: ids.store, docId: crypto.randomUUID() } }),
      404,
    );
    await expectError(await call("POST", "/document-store/vectorstore/insert", { body: { storeId: crypto.randomUUID() } }), 404);
  });
});
