// A Flowise 3.1.4 export file (the shape `dist/services/export-import` writes: every section, records
// as its entities serialise them — JSON fields as strings, ISO dates, workspaceId), built from the
// marketplace templates the other tests already carry, their chat models pointed at the stand-in.
// One record of every kind, with fresh ids per call so tests do not share records.
import type { FlowNode } from "../../src/engine";
import llmChain from "../engine/fixtures/llm-chain.json";
import conversationChain from "../engine/fixtures/conversation-chain.json";
import { inject } from "vitest";
import { type Fixture, flowDataOf, pointAtStandin } from "../engine/helpers";
import { runnable } from "../agentflow/templates";
import multiAgents from "../agentflow-v1/fixtures/multi-agents.json";

const uuid = () => crypto.randomUUID();
const WORKSPACE = "0d1f6b3e-9c2a-4c55-8e4b-7a1d2c3e4f50"; // Flowise writes it on every record; ignored here
const T0 = Date.parse("2026-03-01T10:00:00.000Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

/** Flowise's "Get Current DateTime" tool template (marketplaces/tools), as its Tool entity exports it. */
const DATE_TOOL = {
  name: "todays_date_time",
  description: "Useful to get todays day, date and time.",
  color: "linear-gradient(rgb(117,118,129), rgb(230,10,250))",
  iconSrc: "https://raw.githubusercontent.com/gilbarbara/logos/main/logos/javascript.svg",
  schema: "[]",
  func: "const today = new Date();\nreturn JSON.stringify({ formattedDate: today.toISOString() });\n",
};

export interface ExportIds {
  chatflow: string;
  memoryFlow: string;
  agentflow: string;
  multiagent: string;
  assistantFlow: string;
  assistant: string;
  openaiAssistant: string;
  tool: string;
  variable: string;
  runtimeVariable: string;
  store: string;
  textLoader: string;
  fileLoader: string;
  chunks: string[];
  execution: string;
  chatId: string;
  userMessage: string;
  apiMessage: string;
  agentUserMessage: string;
  agentApiMessage: string;
  feedback: string;
  mcpToken: string;
  template: string;
  toolTemplate: string;
}

export type ExportFile = Record<string, unknown> & {
  ChatFlow: Record<string, unknown>[];
  AgentFlowV2: Record<string, unknown>[];
  ChatMessage: Record<string, unknown>[];
  Variable: Record<string, unknown>[];
  DocumentStoreFileChunk: Record<string, unknown>[];
  Tool: Record<string, unknown>[];
};

const flowRecord = (id: string, name: string, flowData: string, type: string, extra: Record<string, unknown> = {}) => ({
  id,
  name,
  flowData,
  deployed: false,
  isPublic: false,
  apikeyid: null,
  chatbotConfig: null,
  apiConfig: null,
  analytic: null,
  speechToText: null,
  textToSpeech: null,
  followUpPrompts: null,
  category: null,
  type,
  createdDate: at(0),
  updatedDate: at(1),
  workspaceId: WORKSPACE,
  ...extra,
});

/** The stand-in chat model with Flowise's credential id on it (the test creates that credential here, same id). */
function onStandin(fixture: unknown, credentialId: string): string {
  return flowDataOf(fixture as Fixture, (nodes) => {
    for (const node of nodes.values()) {
      if (node.data.category !== "Chat Models") continue;
      node.data.name = "chatOpenAI";
      node.data.inputs = { ...node.data.inputs, modelName: "gpt-standin" };
      pointAtStandin(node, credentialId);
    }
    const prompt = nodes.get("promptTemplate_0");
    if (prompt) prompt.data.inputs = { ...prompt.data.inputs, template: "{product}" };
  });
}

export function flowiseExport(credentialId: string): { file: ExportFile; ids: ExportIds } {
  const ids: ExportIds = {
    chatflow: uuid(),
    memoryFlow: uuid(),
    agentflow: uuid(),
    multiagent: uuid(),
    assistantFlow: uuid(),
    assistant: uuid(),
    openaiAssistant: uuid(),
    tool: uuid(),
    variable: uuid(),
    runtimeVariable: uuid(),
    store: uuid(),
    textLoader: uuid(),
    fileLoader: uuid(),
    chunks: [uuid(), uuid(), uuid()],
    execution: uuid(),
    chatId: uuid(),
    userMessage: uuid(),
    apiMessage: uuid(),
    agentUserMessage: uuid(),
    agentApiMessage: uuid(),
    feedback: uuid(),
    template: uuid(),
    toolTemplate: uuid(),
    mcpToken: Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join(""),
  };
  const tag = ids.chatflow.slice(0, 8);
  const agentflowData = JSON.stringify(runnable("Translator"));
  const v1 = structuredClone(multiAgents) as { nodes: FlowNode[]; edges: unknown[] };
  for (const node of v1.nodes) if (node.data.category === "Chat Models") pointAtStandin(node, credentialId);

  const executedData = [
    {
      nodeId: "startAgentflow_0",
      nodeLabel: "Start",
      data: { id: "startAgentflow_0", name: "startAgentflow", input: { question: "Hello" }, output: { question: "Hello" } },
      previousNodeIds: [],
      status: "FINISHED",
    },
    {
      nodeId: "llmAgentflow_0",
      nodeLabel: "Translator",
      data: { id: "llmAgentflow_0", name: "llmAgentflow", input: {}, output: { content: "Bonjour" } },
      previousNodeIds: ["startAgentflow_0"],
      status: "FINISHED",
    },
  ];
  const chunkTexts = [
    "Edgeflow runs Flowise flows on Cloudflare Workers.",
    "Imported chunks keep their text and metadata.",
    "A PDF page about moving in.",
  ];

  const file = {
    FileDefaultName: "ExportData.json",
    AgentFlow: [flowRecord(ids.multiagent, `Multi Agents ${tag}`, JSON.stringify(v1), "MULTIAGENT")],
    AgentFlowV2: [flowRecord(ids.agentflow, `Translator ${tag}`, agentflowData, "AGENTFLOW")],
    AssistantCustom: [
      {
        id: ids.assistant,
        details: JSON.stringify({ name: `Helper ${tag}`, description: "answers questions", instruction: "Be brief." }),
        credential: uuid(),
        iconSrc: null,
        type: "CUSTOM",
        createdDate: at(2),
        updatedDate: at(2),
        workspaceId: WORKSPACE,
      },
    ],
    AssistantFlow: [flowRecord(ids.assistantFlow, `Helper flow ${tag}`, onStandin(conversationChain, credentialId), "ASSISTANT")],
    AssistantOpenAI: [
      {
        id: ids.openaiAssistant,
        details: JSON.stringify({
          id: "asst_abc123",
          name: `OpenAI helper ${tag}`,
          instructions: "Be helpful.",
          model: "gpt-4o-mini",
          tools: [],
        }),
        credential: credentialId,
        iconSrc: null,
        type: "OPENAI",
        createdDate: at(2),
        updatedDate: at(3),
        workspaceId: WORKSPACE,
      },
    ],
    AssistantAzure: [],
    ChatFlow: [
      flowRecord(ids.chatflow, `LLM Chain ${tag}`, onStandin(llmChain, credentialId), "CHATFLOW", {
        deployed: true,
        isPublic: true,
        category: "Moved",
        chatbotConfig: JSON.stringify({ welcomeMessage: "Hi" }),
        mcpServerConfig: JSON.stringify({
          enabled: true,
          token: ids.mcpToken,
          toolName: `llm_chain_${tag}`,
          description: "Answers with the LLM chain",
        }),
      }),
      flowRecord(ids.memoryFlow, `Conversation Chain ${tag}`, onStandin(conversationChain, credentialId), "CHATFLOW"),
    ],
    ChatMessage: [
      {
        id: ids.userMessage,
        role: "userMessage",
        chatflowid: ids.chatflow,
        executionId: null,
        content: "Hello there",
        sourceDocuments: null,
        usedTools: null,
        fileAnnotations: null,
        agentReasoning: null,
        reasonContent: null,
        fileUploads: null,
        artifacts: null,
        action: null,
        chatType: "EXTERNAL",
        chatId: ids.chatId,
        memoryType: null,
        sessionId: ids.chatId,
        createdDate: at(10),
        leadEmail: null,
        followUpPrompts: null,
      },
      {
        id: ids.apiMessage,
        role: "apiMessage",
        chatflowid: ids.chatflow,
        executionId: null,
        content: "General Kenobi",
        sourceDocuments: "[]",
        usedTools: "[]",
        fileAnnotations: null,
        agentReasoning: null,
        reasonContent: null,
        fileUploads: null,
        artifacts: null,
        action: null,
        chatType: "EXTERNAL",
        chatId: ids.chatId,
        memoryType: null,
        sessionId: ids.chatId,
        createdDate: at(11),
        leadEmail: null,
        followUpPrompts: null,
      },
      {
        id: ids.agentUserMessage,
        role: "userMessage",
        chatflowid: ids.agentflow,
        executionId: ids.execution,
        content: "Hello",
        chatType: "INTERNAL",
        chatId: ids.chatId,
        sessionId: ids.chatId,
        createdDate: at(12),
      },
      // Its execution was not exported (the execution flag was off for it): the link is dropped, as Flowise does.
      {
        id: ids.agentApiMessage,
        role: "apiMessage",
        chatflowid: ids.agentflow,
        executionId: uuid(),
        content: "Bonjour",
        chatType: "INTERNAL",
        chatId: ids.chatId,
        sessionId: ids.chatId,
        createdDate: at(13),
        agentReasoning: JSON.stringify([{ agentName: "Translator", messages: [], nodeName: "llmAgentflow", nodeId: "llmAgentflow_0" }]),
      },
    ],
    ChatMessageFeedback: [
      {
        id: ids.feedback,
        chatflowid: ids.chatflow,
        chatId: ids.chatId,
        messageId: ids.apiMessage,
        rating: "THUMBS_UP",
        content: "spot on",
        createdDate: at(14),
      },
    ],
    // As Flowise's getAllCustomTemplates answers them: usecases parsed, categories added, a tool
    // template's {iconSrc, schema, func} spread out and its flowData left out.
    CustomTemplate: [
      {
        id: ids.template,
        name: `My template ${tag}`,
        flowData: JSON.stringify({
          nodes: [{ id: "chatOpenAI_0", position: { x: 0, y: 0 }, data: { name: "chatOpenAI", category: "Chat Models", inputs: {} } }],
          edges: [],
        }),
        description: "",
        badge: "POPULAR",
        framework: "Langchain",
        usecases: ["Customer Support"],
        type: "Chatflow",
        categories: ["Chat Models"],
        createdDate: at(0),
        updatedDate: at(0),
        workspaceId: WORKSPACE,
      },
      {
        id: ids.toolTemplate,
        name: `Date tool ${tag}`,
        description: DATE_TOOL.description,
        badge: "",
        framework: "",
        usecases: "",
        type: "Tool",
        iconSrc: DATE_TOOL.iconSrc,
        schema: DATE_TOOL.schema,
        func: DATE_TOOL.func,
        categories: [],
        createdDate: at(1),
        updatedDate: at(1),
        workspaceId: WORKSPACE,
      },
    ],
    DocumentStore: [
      {
        id: ids.store,
        name: `Handbook ${tag}`,
        description: "moved from Flowise",
        loaders: JSON.stringify([
          {
            id: ids.textLoader,
            loaderId: "plainText",
            loaderName: "Plain Text",
            loaderConfig: { text: chunkTexts.slice(0, 2).join("\n\n"), metadata: "" },
            splitterId: "recursiveCharacterTextSplitter",
            splitterName: "Recursive Character Text Splitter",
            splitterConfig: { chunkSize: 60, chunkOverlap: 0 },
            totalChunks: 2,
            totalChars: chunkTexts[0].length + chunkTexts[1].length,
            status: "SYNC",
            files: [],
          },
          {
            id: ids.fileLoader,
            loaderId: "pdfFile",
            loaderName: "Pdf File",
            loaderConfig: { pdfFile: 'FILE-STORAGE::["moving.pdf"]', usage: "perPage" },
            splitterId: "recursiveCharacterTextSplitter",
            splitterName: "Recursive Character Text Splitter",
            splitterConfig: { chunkSize: 1000, chunkOverlap: 200 },
            totalChunks: 1,
            totalChars: chunkTexts[2].length,
            status: "SYNC",
            files: [{ id: uuid(), name: "moving.pdf", mimePrefix: "application/pdf", size: 1234, status: "SYNC", uploaded: at(5) }],
          },
        ]),
        whereUsed: JSON.stringify([ids.chatflow]),
        createdDate: at(4),
        updatedDate: at(6),
        status: "UPSERTED",
        // Flowise's {name, config} of the embeddings node (here the stand-in's OpenAI-compatible API); no vector store config: the deployment's default.
        vectorStoreConfig: null,
        recordManagerConfig: null,
        workspaceId: WORKSPACE,
        embeddingConfig: JSON.stringify({
          name: "openAIEmbeddings",
          config: {
            credential: credentialId,
            modelName: "text-embedding-3-small",
            dimensions: 768,
            basepath: `${inject("standinUrl")}/v1`,
          },
        }),
      },
    ],
    DocumentStoreFileChunk: [
      {
        id: ids.chunks[0],
        docId: ids.textLoader,
        storeId: ids.store,
        chunkNo: 1,
        pageContent: chunkTexts[0],
        metadata: JSON.stringify({ source: "text" }),
      },
      {
        id: ids.chunks[1],
        docId: ids.textLoader,
        storeId: ids.store,
        chunkNo: 2,
        pageContent: chunkTexts[1],
        metadata: JSON.stringify({ source: "text" }),
      },
      {
        id: ids.chunks[2],
        docId: ids.fileLoader,
        storeId: ids.store,
        chunkNo: 1,
        pageContent: chunkTexts[2],
        metadata: JSON.stringify({ source: "moving.pdf", pdf: { page: 1 } }),
      },
    ],
    Execution: [
      {
        id: ids.execution,
        executionData: JSON.stringify(executedData),
        state: "FINISHED",
        agentflowId: ids.agentflow,
        sessionId: ids.chatId,
        action: null,
        isPublic: true,
        createdDate: at(12),
        updatedDate: at(13),
        stoppedDate: null,
        workspaceId: WORKSPACE,
      },
    ],
    Tool: [{ id: ids.tool, ...DATE_TOOL, createdDate: at(0), updatedDate: at(0), workspaceId: WORKSPACE }],
    Variable: [
      {
        id: ids.variable,
        name: `region_${tag}`,
        value: "",
        type: "static",
        createdDate: at(0),
        updatedDate: at(0),
        workspaceId: WORKSPACE,
      },
      {
        id: ids.runtimeVariable,
        name: `API_BASE_${tag}`,
        value: "",
        type: "runtime",
        createdDate: at(0),
        updatedDate: at(0),
        workspaceId: WORKSPACE,
      },
    ],
  };
  return { file: file as unknown as ExportFile, ids };
}
