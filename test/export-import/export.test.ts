// Issue 25: POST /export-import/export writes Flowise's export file (its sections, its record fields,
// variables' values empty, no credentials), and that file imports back: export → delete → import.
import { describe, expect, it, vi } from "vitest";
import { call, expectError, json } from "../helpers";
import { ALL_FLAGS, count, exportWith, freshExport, importFile } from "./helpers";

// An export holds the whole deployment, and the suite shares one database: it grows with the suite.
vi.setConfig({ testTimeout: 60_000 });

const SECTIONS = [
  "FileDefaultName",
  "AgentFlow",
  "AgentFlowV2",
  "AssistantCustom",
  "AssistantFlow",
  "AssistantOpenAI",
  "AssistantAzure",
  "ChatFlow",
  "ChatMessage",
  "ChatMessageFeedback",
  "CustomTemplate",
  "DocumentStore",
  "DocumentStoreFileChunk",
  "Execution",
  "Tool",
  "Variable",
];

// Flowise 3.1.4's entity fields (dist/database/entities) less workspaceId, which its import sets itself.
const FLOW_FIELDS = [
  "id",
  "name",
  "flowData",
  "deployed",
  "isPublic",
  "apikeyid",
  "chatbotConfig",
  "apiConfig",
  "analytic",
  "speechToText",
  "textToSpeech",
  "followUpPrompts",
  "category",
  "type",
  "createdDate",
  "updatedDate",
];
const MESSAGE_FIELDS = [
  "id",
  "role",
  "chatflowid",
  "executionId",
  "content",
  "sourceDocuments",
  "usedTools",
  "fileAnnotations",
  "agentReasoning",
  "fileUploads",
  "artifacts",
  "action",
  "chatType",
  "chatId",
  "memoryType",
  "sessionId",
  "createdDate",
  "leadEmail",
  "followUpPrompts",
];

// Flowise's CustomTemplate as its getAllCustomTemplates answers it (usecases parsed, categories added), less workspaceId.
const TEMPLATE_FIELDS = ["id", "name", "description", "badge", "framework", "usecases", "type", "categories", "createdDate", "updatedDate"];

const byId = (list: any[], id: string) => list.find((r) => r.id === id);
const sorted = (o: Record<string, unknown>) => Object.keys(o).sort();

async function exported(flags: Record<string, unknown> = ALL_FLAGS) {
  const res = await exportWith(flags);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  return res.json<any>();
}

describe("POST /export-import/export", () => {
  it("writes Flowise's file shape: every section, its record fields, variable values empty, no credentials", async () => {
    const { file, ids } = await freshExport();
    expect((await importFile(file)).status).toBe(200);
    await json("PUT", `/variables/${ids.variable}`, { body: { value: "secret-ish" } });

    const out = await exported();
    expect(Object.keys(out)).toEqual(SECTIONS);
    expect(out.FileDefaultName).toBe("ExportData.json");
    expect(JSON.stringify(out)).not.toContain("sk-moved"); // the credential's key: credentials are never exported
    expect(Object.keys(out)).not.toContain("Credential");

    const flow = byId(out.ChatFlow, ids.chatflow);
    expect(sorted(flow)).toEqual([...FLOW_FIELDS, "mcpServerConfig"].sort());
    expect(flow).toMatchObject({
      deployed: true,
      isPublic: true,
      type: "CHATFLOW",
      flowData: file.ChatFlow[0].flowData,
      createdDate: "2026-03-01T10:00:00.000Z",
    });
    // The MCP token is kept hashed here: the config goes without it.
    expect(JSON.parse(flow.mcpServerConfig)).toEqual({
      enabled: true,
      token: "",
      toolName: `llm_chain_${ids.chatflow.slice(0, 8)}`,
      description: "Answers with the LLM chain",
    });
    expect(byId(out.AgentFlowV2, ids.agentflow).type).toBe("AGENTFLOW");
    expect(byId(out.AgentFlow, ids.multiagent).type).toBe("MULTIAGENT");
    expect(byId(out.AssistantFlow, ids.assistantFlow).type).toBe("ASSISTANT");
    expect(JSON.parse(byId(out.AssistantCustom, ids.assistant).details)).toMatchObject({ instruction: "Be brief." });
    expect(byId(out.AssistantOpenAI, ids.openaiAssistant)).toBeDefined();
    expect(sorted(byId(out.ChatMessage, ids.userMessage))).toEqual([...MESSAGE_FIELDS].sort());
    expect(byId(out.ChatMessageFeedback, ids.feedback)).toMatchObject({ messageId: ids.apiMessage, rating: "THUMBS_UP" });
    const store = byId(out.DocumentStore, ids.store);
    expect(JSON.parse(store.loaders).map((l: any) => l.id)).toEqual([ids.textLoader, ids.fileLoader]);
    expect(out.DocumentStoreFileChunk.filter((c: any) => c.storeId === ids.store)).toHaveLength(3);
    expect(byId(out.Execution, ids.execution)).toMatchObject({ state: "FINISHED", isPublic: true, agentflowId: ids.agentflow });
    expect(byId(out.Tool, ids.tool)).toMatchObject({ name: "todays_date_time", func: file.Tool[0].func });
    expect(byId(out.Variable, ids.variable)).toMatchObject({ value: "", type: "static" });
    // Custom templates as Flowise's file has them: a flow's with its flowData, a tool's with its parts instead.
    const flowTemplate = byId(out.CustomTemplate, ids.template);
    expect(sorted(flowTemplate)).toEqual([...TEMPLATE_FIELDS, "flowData"].sort());
    expect(flowTemplate).toMatchObject({
      flowData: (file.CustomTemplate as any[])[0].flowData,
      usecases: ["Customer Support"],
      categories: ["Chat Models"],
      badge: "POPULAR",
      type: "Chatflow",
    });
    const toolTemplate = byId(out.CustomTemplate, ids.toolTemplate);
    expect(sorted(toolTemplate)).toEqual([...TEMPLATE_FIELDS, "iconSrc", "schema", "func"].sort());
    expect(toolTemplate).toMatchObject({ type: "Tool", usecases: [], categories: [], func: (file.CustomTemplate as any[])[1].func });
    // One saved here from a chatflow is exported the same way.
    const saved = await json("POST", "/marketplaces/custom", {
      body: { name: "saved here", chatflowId: ids.chatflow, usecases: ["Q&A"], badge: "NEW" },
    });
    const again = byId((await exported({ custom_template: true })).CustomTemplate, saved.id);
    expect(sorted(again)).toEqual([...TEMPLATE_FIELDS, "flowData"].sort());
    expect(again).toMatchObject({ name: "saved here", usecases: ["Q&A"], badge: "NEW", type: "Chatflow", framework: "Langchain" });
    expect(JSON.parse(again.flowData).nodes.length).toBeGreaterThan(0);
  });

  it("only the sections whose flags are true are filled; a flag that is not a boolean is a 400", async () => {
    const { file, ids } = await freshExport();
    expect((await importFile(file)).status).toBe(200);
    const out = await exported({ chatflow: true, tool: false });
    expect(Object.keys(out)).toEqual(SECTIONS);
    expect(byId(out.ChatFlow, ids.chatflow)).toBeDefined();
    expect(out.Tool).toEqual([]);
    expect(out.AgentFlowV2).toEqual([]);
    expect(out.ChatMessage).toEqual([]);
    expect(out.CustomTemplate).toEqual([]);
    expect((await expectError(await exportWith({ chatflow: "yes" }), 400)).message).toContain("chatflow");
    await expectError(await call("POST", "/export-import/export", { raw: "[]", headers: { "content-type": "application/json" } }), 400);
    await expectError(await call("POST", "/export-import/export", { body: ALL_FLAGS, token: null }), 401);
    const viewer = (await json("POST", "/apikey", { body: { keyName: "viewer", permissions: ["chatflows:view"] } })).apiKey;
    expect((await expectError(await exportWith(ALL_FLAGS, viewer), 403)).message).toContain('"workspace:export"');
  });

  it("round trip: export → delete everything → import the export gives the same records back", async () => {
    const { file, ids } = await freshExport();
    expect((await importFile(file)).status).toBe(200);
    await json("POST", `/prediction/${ids.chatflow}`, { body: { question: "before the move", chatId: ids.chatId } });
    const before = await exported();
    const mine = <T extends { id: string }>(list: T[], wanted: string[]) => list.filter((r) => wanted.includes(r.id));
    const flowIds = [ids.chatflow, ids.memoryFlow, ids.agentflow, ids.multiagent, ids.assistantFlow];
    const messagesBefore = before.ChatMessage.filter((m: any) => flowIds.includes(m.chatflowid));
    expect(messagesBefore).toHaveLength(6);

    for (const id of flowIds) await json("DELETE", `/chatflows/${id}`);
    for (const id of [ids.assistant, ids.openaiAssistant]) await json("DELETE", `/assistants/${id}`);
    await json("DELETE", `/tools/${ids.tool}`);
    for (const id of [ids.variable, ids.runtimeVariable]) await json("DELETE", `/variables/${id}`);
    await json("DELETE", `/document-store/store/${ids.store}`);
    for (const id of [ids.template, ids.toolTemplate]) await json("DELETE", `/marketplaces/custom/${id}`);
    expect(await count("SELECT COUNT(*) AS n FROM chat_message WHERE chatflowid = ?", ids.chatflow)).toBe(0);

    // The tests share one database: the records of this test, as the export wrote them, go back in.
    const ours = new Set<string>([
      ...flowIds,
      ids.assistant,
      ids.openaiAssistant,
      ids.feedback,
      ids.store,
      ids.execution,
      ids.tool,
      ids.variable,
      ids.runtimeVariable,
      ids.template,
      ids.toolTemplate,
    ]);
    const subset = Object.fromEntries(
      Object.entries(before).map(([section, records]) => [
        section,
        Array.isArray(records)
          ? records.filter((r: any) => ours.has(r.id) || flowIds.includes(r.chatflowid) || r.storeId === ids.store)
          : records,
      ]),
    );
    const res = await importFile(subset);
    expect(res.status).toBe(200);
    const after = await exported();
    // An MCP server's token is stored hashed, so edgeflow's export cannot carry it: that config does not come back.
    const withoutMcp = (list: any[]) => list.map(({ mcpServerConfig: _mcp, ...flow }) => flow);
    for (const section of ["ChatFlow", "AgentFlow", "AgentFlowV2", "AssistantFlow"]) {
      expect(withoutMcp(mine(after[section], flowIds))).toEqual(withoutMcp(mine(before[section], flowIds)));
    }
    expect(byId(after.ChatFlow, ids.chatflow)).not.toHaveProperty("mcpServerConfig");
    const assistantIds = [ids.assistant, ids.openaiAssistant];
    expect(mine(after.AssistantCustom, assistantIds)).toEqual(mine(before.AssistantCustom, assistantIds));
    expect(mine(after.AssistantOpenAI, assistantIds)).toEqual(mine(before.AssistantOpenAI, assistantIds));
    expect(after.ChatMessage.filter((m: any) => flowIds.includes(m.chatflowid))).toEqual(messagesBefore);
    expect(mine(after.ChatMessageFeedback, [ids.feedback])).toEqual(mine(before.ChatMessageFeedback, [ids.feedback]));
    expect(mine(after.DocumentStore, [ids.store])).toEqual(mine(before.DocumentStore, [ids.store]));
    expect(after.DocumentStoreFileChunk.filter((c: any) => c.storeId === ids.store)).toEqual(
      before.DocumentStoreFileChunk.filter((c: any) => c.storeId === ids.store),
    );
    expect(mine(after.Execution, [ids.execution])).toEqual(mine(before.Execution, [ids.execution]));
    expect(mine(after.Tool, [ids.tool])).toEqual(mine(before.Tool, [ids.tool]));
    expect(mine(after.Variable, [ids.variable, ids.runtimeVariable])).toEqual(mine(before.Variable, [ids.variable, ids.runtimeVariable]));
    const templateIds = [ids.template, ids.toolTemplate];
    expect(mine(after.CustomTemplate, templateIds)).toHaveLength(2);
    expect(mine(after.CustomTemplate, templateIds)).toEqual(mine(before.CustomTemplate, templateIds));
    // And it still runs, with its conversation.
    expect((await json("POST", `/prediction/${ids.chatflow}`, { body: { question: "after the move" } })).text).toBe("echo: after the move");
  }, 60_000); // the whole deployment goes out and back: the suite shares one database, so it grows with the suite
});
