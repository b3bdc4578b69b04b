// The shared tool registry: a tool by Flowise name and inputs, for chatflow tool nodes today and
// Agentflow's Agent/Tool nodes next. Adding a tool is a module here and one line in `definitions`.
import { fail } from "../../errors";
import { calculatorTool } from "./calculator";
import { e2bTool } from "./e2b";
import { chainTool } from "./chain";
import { customTool } from "./custom";
import { queryEngineTool } from "./query-engine";
import { currentDateTimeTool } from "./datetime";
import { agentAsTool, chatflowTool } from "./flow-tool";
import { jsonPathExtractor } from "./json-path";
import { openApiToolkit } from "./openapi/toolkit";
import { requestsTools } from "./requests/requests";
import { retrieverTool } from "./retriever";
import { arxivTool } from "./web/arxiv";
import { webScraperTool } from "./web/scraper";
import { webBrowserTool } from "./web/browser";
import { braveSearchTool } from "./search/brave";
import { googleCustomSearchTool } from "./search/google";
import { serpApiTool } from "./search/serpapi";
import { serperTool } from "./search/serper";
import { tavilyTool } from "./search/tavily";
import { exaSearchTool } from "./search/exa";
import { searchApiTool } from "./search/searchapi";
import { searxngTool } from "./search/searxng";
import { wolframAlphaTool } from "./search/wolfram";
import { customMcpTools } from "./mcp/custom-mcp";
import { customMcpServerTools } from "./mcp/custom-mcp-server";
import { mcpPresetTools } from "./mcp/presets";
import { nativeMcpToolDefinitions } from "./mcp/native";
import { awsDynamoDbKvTool, awsSnsTool } from "./aws";
import { gmailTools } from "./google/gmail";
import { googleCalendarTools } from "./google/calendar";
import { googleDocsTool } from "./google/docs";
import { googleDriveTool } from "./google/drive";
import { googleSheetsTool } from "./google/sheets";
import { jiraTools } from "./jira/jira";
import { composioTools } from "./composio";
import { stripeAgentTools } from "./stripe";
import { microsoftOutlookTools } from "./microsoft/outlook";
import { microsoftTeamsTools } from "./microsoft/teams";
import type { BuiltTool, ToolDefinition, ToolDeps } from "./types";

const usable: ToolDefinition[] = [
  { name: "calculator", build: async () => calculatorTool() },
  { name: "codeInterpreterE2B", build: e2bTool },
  { name: "customTool", build: customTool },
  { name: "chainTool", build: chainTool },
  { name: "retrieverTool", build: retrieverTool },
  { name: "serpAPI", build: serpApiTool },
  { name: "serper", build: serperTool },
  { name: "googleCustomSearch", build: googleCustomSearchTool },
  { name: "braveSearchAPI", build: braveSearchTool },
  { name: "tavilyAPI", build: tavilyTool },
  { name: "searXNG", build: searxngTool },
  { name: "exaSearch", build: exaSearchTool },
  { name: "wolframAlpha", build: wolframAlphaTool },
  { name: "searchAPI", build: searchApiTool },
  ...requestsTools,
  { name: "webScraperTool", build: webScraperTool },
  { name: "webBrowser", build: webBrowserTool },
  { name: "arxiv", build: arxivTool },
  { name: "queryEngineToolLlamaIndex", build: queryEngineTool },
  { name: "currentDateTime", build: currentDateTimeTool },
  { name: "ChatflowTool", build: chatflowTool },
  { name: "agentAsTool", build: agentAsTool },
  { name: "jsonPathExtractor", build: jsonPathExtractor },
  { name: "openAPIToolkit", build: openApiToolkit },
  { name: "jiraTool", build: jiraTools },
  { name: "composio", build: composioTools },
  { name: "stripeAgentTool", build: stripeAgentTools },
  { name: "customMCP", build: customMcpTools },
  { name: "customMcpServerTool", build: customMcpServerTools },
  ...mcpPresetTools,
  ...nativeMcpToolDefinitions,
  { name: "gmail", build: gmailTools },
  { name: "googleCalendarTool", build: googleCalendarTools },
  { name: "googleDriveTool", build: googleDriveTool },
  { name: "googleSheetsTool", build: googleSheetsTool },
  { name: "googleDocsTool", build: googleDocsTool },
  { name: "awsSNS", build: awsSnsTool },
  { name: "awsDynamoDBKVStorage", build: awsDynamoDbKvTool },
  { name: "microsoftOutlook", build: microsoftOutlookTools },
  { name: "microsoftTeams", build: microsoftTeamsTools },
];

const byName = new Map(usable.map((d) => [d.name, d]));

export const supportedTools = (): string[] => usable.map((d) => d.name).sort();

/** Every tool node name the registry builds (chatflow nodes, agentflow tool choices). */
export const toolNodeNames = (): string[] => [...byName.keys()].sort();

/** A tool, or several for a toolkit (openAPIToolkit: one per operation). */
export async function buildTool(name: string, inputs: Record<string, unknown>, deps: ToolDeps): Promise<BuiltTool> {
  const def = byName.get(name);
  if (!def) throw fail("UNKNOWN_NODE", `Unknown tool "${name}". Supported: ${supportedTools().join(", ")}`);
  return def.build(inputs, deps);
}
