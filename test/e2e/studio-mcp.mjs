// The Tools page's Custom MCP Servers view, driven as a person does: a server (the loopback MCP
// stand-in, test/standin/mcp.mjs, reachable because the browser test's worker runs with
// OUTBOUND_ALLOW=127.0.0.1) added and connected — its tools listed by the page and kept by the API —
// then renamed in the edit dialog, which sends back the masked URL it was shown: the stored URL is
// kept and the server reconnects.
import { startMcpStandin } from "../standin/mcp.mjs";
import { assert, eventually } from "./studio-watch.mjs";

const NAME = "Studio e2e MCP server";
const RENAMED = `${NAME} (renamed)`;

export async function mcpServerOnToolsPage({ page, origin, api }) {
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
  } finally {
    await mcp.close();
  }
}
