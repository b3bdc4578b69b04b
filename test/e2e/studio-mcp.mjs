// The Tools page's Custom MCP Servers view, driven as a person does: a server (the loopback MCP
// stand-in, test/standin/mcp.mjs, reachable because the browser test's worker runs with
// OUTBOUND_ALLOW=127.0.0.1) added and connected — its tools listed by the page and kept by the API —
// then renamed in the edit dialog, which sends back the masked URL it was shown: the stored URL is
// kept and the server reconnects. Then, on the agent canvas, an Agent's tool set to Custom MCP
// Server: that server offered, its kept tools listed by the refresh beside Available Actions, one
// chosen and saved with the flow.
import { startMcpStandin } from "../standin/mcp.mjs";
import { addNode, pick, saveNew } from "./studio-canvas.mjs";
import { assert, eventually, need } from "./studio-watch.mjs";

const NAME = "Studio e2e MCP server";
const RENAMED = `${NAME} (renamed)`;

export async function mcpServerOnToolsPage({ page, origin, api, j }) {
  const mcp = await startMcpStandin();
  try {
    await page.goto(`${origin}/tools`);
    await page.getByRole("tab", { name: "Custom MCP Servers" }).click();
    await page.getByRole("button", { name: "Add Custom MCP Server" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.locator('input[placeholder="My Server Name"]').fill(NAME);
    await dialog.locator('input[placeholder="https://example.com/mcp"]').fill(`${mcp.url}/mcp`);
    await dialog.getByRole("button", { name: "Add & Connect" }).click();
    await page.getByText("MCP Server added and connected! Discovered 4 tools").waitFor({ timeout: 20_000 });
    for (const tool of ["echo", "add", "fail", "big"]) await dialog.getByText(tool, { exact: true }).waitFor();

    const stored = (await api("GET", "/custom-mcp-servers")).find((s) => s.name === NAME);
    assert(stored?.status === "AUTHORIZED" && stored.toolCount === 4, `stored: ${JSON.stringify(stored)}`);
    assert(stored.serverUrl === `${new URL(mcp.url).origin}/************`, `the URL is answered unmasked: ${stored.serverUrl}`);

    await dialog.getByRole("button", { name: "Edit" }).click();
    const name = dialog.locator('input[placeholder="My Server Name"]');
    await name.fill(RENAMED);
    await dialog.getByRole("button", { name: "Save & Reconnect" }).click();
    await page.getByText("Saved and reconnected! Discovered 4 tools").waitFor({ timeout: 20_000 });
    const renamed = await eventually("the rename stored", async () => {
      const s = await api("GET", `/custom-mcp-servers/${stored.id}`);
      return s.name === RENAMED && s;
    });
    assert(renamed.status === "AUTHORIZED" && JSON.parse(renamed.tools).tools.length === 4, `after the edit: ${renamed.status}`);
    await page.keyboard.press("Escape");
    await page.getByText(RENAMED).first().waitFor();
    j.mcpServerId = stored.id;
  } finally {
    await mcp.close();
  }
}

/** An option of an async drop-down (opened from the keyboard: its input has no Open button of its own). */
async function chooseAsync(page, input, option) {
  await input.focus();
  await page.keyboard.press("ArrowDown");
  await page.getByRole("option", { name: option }).first().click();
}

export async function mcpServerOnAgentCanvas({ page, origin, api, j }) {
  const serverId = need(j.mcpServerId, "no MCP server was added (Tools page step)");
  await page.goto(`${origin}/v2/agentcanvas`);
  await page.getByTestId("rf__node-startAgentflow_0").waitFor({ timeout: 20_000 });
  const agent = await addNode(page, "Agent", "Agent");
  await page.getByTestId(`rf__node-${agent}`).dblclick();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("button", { name: "Add Tools" }).click();
  await pick(page, dialog.locator("#agentSelectedTool").first(), "Custom MCP Server");
  await dialog.getByText("Custom MCP Server Parameters").click();
  await chooseAsync(page, dialog.locator("#mcpServerId").first(), RENAMED);
  await dialog.locator("button:has(svg.tabler-icon-refresh)").first().click(); // Available Actions: list the chosen server's
  await chooseAsync(page, dialog.locator("#mcpActions").first(), /^ECHO/);
  for (let i = 0; i < 3 && (await dialog.isVisible()); i++) await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "hidden" });

  const id = await saveNew(page, "Save Agents", "Studio e2e MCP agent");
  const flow = JSON.parse((await api("GET", `/chatflows/${id}`)).flowData);
  const [tool] = flow.nodes.find((n) => n.id === agent).data.inputs.agentTools ?? [];
  const config = tool?.agentSelectedToolConfig ?? {};
  const actions = typeof config.mcpActions === "string" ? JSON.parse(config.mcpActions) : config.mcpActions;
  assert(
    tool?.agentSelectedTool === "customMcpServerTool" && config.mcpServerId === serverId && actions?.includes("echo"),
    `the Agent's tool: ${JSON.stringify(tool)}`,
  );
}
