// openAPIToolkit on the canvas, as Flowise 3.1.4 draws it: the spec from a file (openApiFile) or a
// link (openApiLink, under the outbound policy); Server (listServers) and Available Endpoints
// (listEndpoints) listed from it; and the node runs what was chosen there (selectedServer,
// selectedEndpoints).
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { FlowNode } from "../../src/engine";
import { registry } from "../../src/engine/chatflow/registry";
import { makeCtx, runtimeWith } from "../engine/helpers";
import { call } from "../helpers";
import { setVars } from "../security/helpers";

const services = () => inject("servicesUrl");
const spec = () => `openapi: 3.0.0
info: {title: Pets, version: "1"}
servers:
  - url: https://api.example.invalid/v1
  - url: ${services()}/echo/second
    description: the stand-in
paths:
  /pets/{petId}:
    get:
      operationId: getPet
      summary: Reads one pet
      parameters:
        - {name: petId, in: path, required: true, schema: {type: string}}
  /health:
    get:
      summary: Is it up
`;
const dataUri = (text: string) => `data:application/x-yaml;base64,${btoa(text)},filename:pets.yaml`;
const link = (text: string) => `${services()}/spec/pets.yaml?b64=${encodeURIComponent(btoa(text))}`;
const options = async (loadMethod: string, inputs: Record<string, unknown>) => {
  const res = await call("POST", "/node-load-method/openAPIToolkit", { body: { loadMethod, inputs } });
  expect(res.status).toBe(200);
  return (await res.json()) as { label: string; name: string; description?: string }[];
};

describe("openAPIToolkit's Server and Available Endpoints", () => {
  let restore: () => void;
  beforeAll(() => {
    restore = setVars({ OUTBOUND_ALLOW: new URL(services()).host });
  });
  afterAll(() => restore());

  it("from a file: every server; every operation by Flowise's name (operationId, else METHOD path), sorted", async () => {
    const inputs = { inputType: "file", openApiFile: dataUri(spec()) };
    expect((await options("listServers", inputs)).map((o) => o.name)).toEqual([
      "https://api.example.invalid/v1",
      `${services()}/echo/second`,
    ]);
    expect(await options("listEndpoints", inputs)).toEqual([
      { label: "GET /health", name: "GET /health", description: "Is it up" },
      { label: "getPet", name: "getPet", description: "Reads one pet" },
    ]);
  });

  it("from a link, fetched under the outbound policy; a spec that cannot be read is Flowise's one 'No … Found' option saying why", async () => {
    const inputs = { inputType: "link", openApiLink: link(spec()) };
    expect((await options("listEndpoints", inputs)).map((o) => o.name)).toEqual(["GET /health", "getPet"]);
    const none = await options("listServers", { inputType: "file" });
    expect(none).toEqual([{ label: "No Servers Found", name: "error", description: expect.stringMatching(/needs an OpenAPI spec/) }]);
    restore();
    try {
      const refused = await options("listEndpoints", { inputType: "link", openApiLink: link(spec()) });
      expect(refused[0]).toMatchObject({ name: "error", description: expect.stringMatching(/loopback|refused/i) });
    } finally {
      restore = setVars({ OUTBOUND_ALLOW: new URL(services()).host });
    }
  });

  it("the node runs the chosen server and only the chosen endpoints", async () => {
    const inputs = {
      inputType: "file",
      openApiFile: dataUri(spec()),
      selectedServer: `${services()}/echo/second`,
      selectedEndpoints: JSON.stringify(["getPet"]),
    };
    const node: FlowNode = {
      id: "openAPIToolkit_0",
      data: { id: "openAPIToolkit_0", name: "openAPIToolkit", label: "OpenAPI Toolkit", category: "Tools", inputs },
    };
    const ctx = makeCtx("q", { runtime: runtimeWith({ OUTBOUND_ALLOW: "127.0.0.1" }) });
    const tools = (await registry.get("openAPIToolkit")!.build({ node, inputs, ctx })) as StructuredToolInterface[];
    expect(tools.map((t) => t.name)).toEqual(["getPet"]);
    expect(JSON.parse(await tools[0].invoke({ PathParameters: { petId: "7" } }))).toMatchObject({
      method: "GET",
      path: "/echo/second/pets/7",
    });
  });
});
