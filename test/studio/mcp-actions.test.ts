// Custom MCP on the canvas: its Available Actions input (load method listActions) lists the tools
// the configured server offers, through the outbound policy, with `{{$vars.x}}` in its headers; a
// server that cannot be reached or is refused is a clear error, and a stdio config is the 400 that
// says Workers cannot start processes.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";
import { setVars } from "../security/helpers";

const mcpUrl = () => inject("mcpUrl");
const load = (mcpServerConfig: string) =>
  call("POST", "/node-load-method/customMCP", { body: { loadMethod: "listActions", inputs: { mcpServerConfig } } });

describe("POST /node-load-method/customMCP listActions", () => {
  let restore: () => void;
  beforeAll(() => {
    restore = setVars({ OUTBOUND_ALLOW: new URL(mcpUrl()).host });
  });
  afterAll(() => restore());

  it("answers the server's tools as options, names and descriptions", async () => {
    const res = await load(JSON.stringify({ url: `${mcpUrl()}/mcp` }));
    expect(res.status).toBe(200);
    const options = (await res.json()) as { label: string; name: string; description?: string }[];
    expect(options.map((o) => o.name)).toEqual(expect.arrayContaining(["echo", "add"]));
    expect(options.find((o) => o.name === "echo")).toEqual({ label: "echo", name: "echo", description: "Echoes the text back" });
  });

  it("stored variables fill the config's headers (the server behind a token)", async () => {
    const name = `mcp_token_${uuid().slice(0, 8)}`;
    await json("POST", "/variables", { body: { name, value: "mcp-secret", type: "static" } });
    const config = JSON.stringify({ url: `${mcpUrl()}/secure/mcp`, headers: { Authorization: `Bearer {{$vars.${name}}}` } });
    const res = await load(config);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { name: string }[]).map((o) => o.name)).toContain("echo");
  });

  it("a stdio config, a missing url and a refused address are clear 4xx", async () => {
    expect((await expectError(await load(JSON.stringify({ command: "npx", args: ["x"] })), 400)).message).toMatch(/cannot start processes/);
    expect((await expectError(await load("{}"), 400)).message).toMatch(/needs a url/);
    restore();
    try {
      const refused = await load(JSON.stringify({ url: `${mcpUrl()}/mcp` }));
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(600);
      expect(((await refused.json()) as { message: string }).message).toMatch(/loopback|refused/i);
    } finally {
      restore = setVars({ OUTBOUND_ALLOW: new URL(mcpUrl()).host });
    }
  });
});
