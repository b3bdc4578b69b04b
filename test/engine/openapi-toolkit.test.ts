// openAPIToolkit and currentDateTime (shared tool registry), then Flowise's "OpenAPI YAML Agent"
// template (toolAgent + chatAnthropic + openAPIToolkit + buffer memory) with a spec whose server is
// the services stand-in's echo (test/standin/services.mjs), which answers what it received.
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { FlowNode, RunContext } from "../../src/engine";
import { registry } from "../../src/engine/chatflow/registry";
import { buildTool } from "../../src/engine/tools/registry";
import { flowDataWarning } from "../../src/services/chatflows";
import { callOf } from "./agents-flows";
import openApiAgent from "./fixtures/openapi-yaml-agent.json";
import { type Fixture, credential, flowDataOf, makeCtx, marker, runFlow, runtimeWith } from "./helpers";

const services = () => inject("servicesUrl");
const anthropicUrl = () => inject("anthropicUrl");
const allowed = (over = {}): RunContext =>
  makeCtx("q", { runtime: runtimeWith({ OUTBOUND_ALLOW: "127.0.0.1", ANTHROPIC_BASE_URL: anthropicUrl(), ...over }) });

const specYaml = (server = `${services()}/echo/api`) => `openapi: 3.0.0
info: {title: Pets, version: "1"}
servers:
  - url: ${server}
paths:
  /pets/{petId}:
    parameters:
      - {name: petId, in: path, required: true, schema: {type: string}, description: the pet's id}
    get:
      operationId: getPet
      summary: Reads one pet
      parameters:
        - {name: verbose, in: query, schema: {type: boolean}}
  /pets:
    post:
      operationId: createPet
      description: Creates a pet
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Pet'}
  /health:
    get: {}
components:
  schemas:
    Pet:
      type: object
      required: [name]
      properties:
        name: {type: string}
        tags: {type: array, items: {type: string}}
`;

const dataUri = (text: string, name = "pets.yaml") => `data:application/x-yaml;base64,${btoa(text)},filename:${name}`;

async function toolkit(inputs: Record<string, unknown>, ctx = allowed()): Promise<StructuredToolInterface[]> {
  const node: FlowNode = {
    id: "openAPIToolkit_0",
    data: { id: "openAPIToolkit_0", name: "openAPIToolkit", label: "OpenAPI Toolkit", category: "Tools", inputs },
  };
  return (await registry.get("openAPIToolkit")!.build({ node, inputs, ctx })) as StructuredToolInterface[];
}

const byName = (tools: StructuredToolInterface[]) => new Map(tools.map((t) => [t.name, t]));

const failure = async (p: Promise<unknown>): Promise<{ status?: number; message: string }> => {
  try {
    await p;
  } catch (err) {
    return err as { status?: number; message: string };
  }
  throw new Error("expected a failure");
};

describe("openAPIToolkit", () => {
  it("one tool per operation: path and query parameters, a $ref'd JSON body, headers; what the API received", async () => {
    const tools = byName(await toolkit({ yamlFile: dataUri(specYaml()), headers: '{"X-Api-Token": "tok-openapi-123456"}' }));
    expect([...tools.keys()]).toEqual(["getPet", "createPet", "get_health"]);
    expect(tools.get("getPet")!.description).toBe("Reads one pet");
    const m = marker();
    const read = JSON.parse(await tools.get("getPet")!.invoke({ PathParameters: { petId: `p ${m}` }, QueryParameters: { verbose: true } }));
    expect(read).toMatchObject({ method: "GET", path: `/echo/api/pets/p%20${m}?verbose=true` });
    expect(read.headers["x-api-token"]).toBe("tok-openapi-123456");
    const created = JSON.parse(await tools.get("createPet")!.invoke({ RequestBody: { name: m, tags: ["a"] } }));
    expect(created).toMatchObject({ method: "POST", path: "/echo/api/pets", body: { name: m, tags: ["a"] } });
    expect(created.headers["content-type"]).toBe("application/json");
    // The body's schema came through the $ref: a body without `name` does not reach the API.
    await expect(tools.get("createPet")!.invoke({ RequestBody: { tags: [] } })).rejects.toThrow();
    expect(JSON.parse(await tools.get("get_health")!.invoke({}))).toMatchObject({ method: "GET", path: "/echo/api/health" });
  });

  it("a JSON spec as text, with baseUrl overriding its server; removeNulls", async () => {
    const json = JSON.stringify({
      openapi: "3.1.0",
      servers: [{ url: "https://api.example.invalid/v1" }],
      paths: {
        "/things": {
          put: {
            operationId: "putThing",
            requestBody: {
              content: {
                "application/json": { schema: { type: "object", properties: { a: { type: "string" }, b: { type: ["string", "null"] } } } },
              },
            },
          },
        },
      },
    });
    const [put] = await toolkit({ yamlFile: json, baseUrl: `${services()}/echo/base`, removeNulls: true });
    const m = marker();
    expect(JSON.parse(await put.invoke({ RequestBody: { a: m, b: null } }))).toMatchObject({
      method: "PUT",
      path: "/echo/base/things",
      body: { a: m },
    });
    // Server variables take their defaults.
    const withVars = json.replace(
      '"servers":[{"url":"https://api.example.invalid/v1"}]',
      `"servers":[{"url":"${services()}/echo/{stage}","variables":{"stage":{"default":"prod"}}}]`,
    );
    const [put2] = await toolkit({ yamlFile: withVars });
    expect(JSON.parse(await put2.invoke({ RequestBody: { a: m } }))).toMatchObject({ path: "/echo/prod/things" });
  });

  it("a customCode of the user's own makes the request in the sandbox with $url and $options", async () => {
    const template = (openApiAgent.nodes.find((n) => n.data.name === "openAPIToolkit")!.data.inputs as { customCode: string }).customCode;
    const code = template.replace("return JSON.stringify(resp);", "return 'custom ' + options.method + ' ' + JSON.stringify(resp);");
    expect(code).not.toBe(template);
    const [getPet] = await toolkit({ yamlFile: dataUri(specYaml()), customCode: code });
    const m = marker();
    const out = await getPet.invoke({ PathParameters: { petId: m } });
    expect(out.startsWith("custom GET {")).toBe(true);
    expect(JSON.parse(out.slice("custom GET ".length))).toMatchObject({ method: "GET", path: `/echo/api/pets/${m}` });
  });

  it("API errors, refused URLs and missing path parameters are tool errors the model reads", async () => {
    const tools = byName(
      await toolkit({ yamlFile: dataUri(specYaml(`${services()}/nothing`)), headers: { Authorization: "Bearer secret-token-987654" } }),
    );
    const notFound = await failure(tools.get("get_health")!.invoke({}));
    expect(notFound.message).toMatch(/^get_health answered HTTP 404/);
    expect(notFound.message).not.toContain("secret-token-987654");
    const refused = byName(await toolkit({ yamlFile: dataUri(specYaml()) }, allowed({ OUTBOUND_ALLOW: "" })));
    expect((await failure(refused.get("get_health")!.invoke({}))).message).toMatch(/127\.0\.0\.1|private|not allowed|refused/i);
    expect((await failure(tools.get("getPet")!.invoke({ PathParameters: {} }))).message).toMatch(/petId/);
  });

  it("a spec that cannot be used is a 400 naming the node", async () => {
    const cases: Array<[unknown, RegExp]> = [
      ["", /needs an OpenAPI spec/],
      ["openapi: [unclosed", /not valid YAML or JSON/],
      ["openapi: 3.0.0\ninfo: {}", /has no paths/],
      [specYaml().replace(/servers:\n {2}- url: .*\n/, ""), /names no server/],
      [
        "openapi: 3.0.0\npaths:\n  /a:\n    get:\n      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Nope'}}}}\nservers: [{url: 'http://x.test'}]",
        /refers to #\/components\/schemas\/Nope/,
      ],
      ['FILE-STORAGE::["spec.yaml"]', /stored files/],
    ];
    for (const [yamlFile, message] of cases) {
      const err = await failure(
        toolkit({ yamlFile: typeof yamlFile === "string" && yamlFile.startsWith("openapi") ? dataUri(yamlFile) : yamlFile }),
      );
      expect(err.status).toBe(400);
      expect(err.message).toMatch(/^OpenAPI Toolkit/);
      expect(err.message).toMatch(message);
    }
  });
});

describe("currentDateTime", () => {
  it("answers the run clock's date, time and weekday (UTC)", async () => {
    const ctx = allowed();
    ctx.runtime.clock.now = () => "2026-03-04T05:06:07.000Z";
    const tool = (await buildTool("currentDateTime", {}, { ctx, label: "CurrentDateTime" })) as StructuredToolInterface;
    expect(tool.name).toBe("current_date_time");
    expect(JSON.parse(await tool.invoke({}))).toEqual({
      date: "2026-03-04",
      time: "05:06:07",
      day: "Wednesday",
      timezone: "UTC",
      timezoneOffset: "+00:00",
      iso8601: "2026-03-04T05:06:07.000Z",
      unix_timestamp: 1772600767,
    });
  });
});

describe("OpenAPI YAML Agent template (toolAgent + chatAnthropic + openAPIToolkit)", () => {
  const flowWith = async (yamlFile: string) => {
    const cred = await credential("anthropicApi", { anthropicApiKey: "sk-ant-openapi-1" });
    return flowDataOf(openApiAgent as unknown as Fixture, (n) => {
      n.get("chatAnthropic_0")!.data.credential = cred;
      n.get("openAPIToolkit_0")!.data.inputs!.yamlFile = yamlFile;
    });
  };

  it("saves without a warning", () => {
    expect(flowDataWarning(flowDataOf(openApiAgent as unknown as Fixture))).toBeUndefined();
  });

  it("Claude is offered one tool per operation, calls getPet, the API gets the call, the answer follows", async () => {
    const m = marker();
    const flow = await flowWith(dataUri(specYaml()));
    const result = await runFlow(
      flow,
      makeCtx(`Tell me about pet 7 ${callOf("getPet", { PathParameters: { petId: m } })}`, { runtime: allowed().runtime }),
    );
    expect(result.usedTools).toHaveLength(1);
    expect(result.usedTools![0]).toMatchObject({ tool: "getPet", toolInput: { PathParameters: { petId: m } } });
    expect(JSON.parse(result.usedTools![0].toolOutput)).toMatchObject({ method: "GET", path: `/echo/api/pets/${m}` });
    expect(result.text).toBe(`tools said: ${result.usedTools![0].toolOutput}`);
    expect(result.memoryType).toBe("Buffer Memory");
    const [first] = await (await fetch(`${anthropicUrl()}/requests?contains=${m}`)).json<
      Array<{ body: { tools: Array<{ name: string; input_schema: { properties: Record<string, unknown> } }>; system?: unknown } }>
    >();
    expect(first.body.tools.map((t) => t.name)).toEqual(["getPet", "createPet", "get_health"]);
    expect(Object.keys(first.body.tools[0].input_schema.properties)).toEqual(["PathParameters", "QueryParameters"]);
    expect(JSON.stringify(first.body.system)).toContain("You are an agent that can interact with the API");
  });

  it("an API that is down is a readable tool error Claude reads; the run answers", async () => {
    const m = marker();
    const flow = await flowWith(dataUri(specYaml(`${inject("closedUrl")}/api`)));
    const result = await runFlow(flow, makeCtx(`${callOf("get_health", {})} ${m}`, { runtime: allowed().runtime }));
    // The template's (default) customCode would answer "" for any failure; edgeflow says what failed.
    expect(result.usedTools).toHaveLength(1);
    expect(result.usedTools![0].toolOutput).toMatch(/^Error: OpenAPI Toolkit \(openAPIToolkit_0\) get_health is unreachable/);
    expect(result.text).toBe(`tools said: ${result.usedTools![0].toolOutput}`);
  });
});

describe("in agentflows", () => {
  it("an Agent node's openAPIToolkit gives one tool per operation; currentDateTime one", async () => {
    const { selectedTools } = await import("../../src/engine/agentflow/tools");
    const ctx = allowed();
    const tools = await selectedTools(ctx, "openAPIToolkit", { yamlFile: dataUri(specYaml()) }, "OpenAPI Agent (agentAgentflow_1)");
    expect(tools.map((t) => t.name)).toEqual(["getPet", "createPet", "get_health"]);
    expect(JSON.parse(await tools[2].invoke({}))).toMatchObject({ method: "GET", path: "/echo/api/health" });
    expect((await selectedTools(ctx, "currentDateTime", {}, "Agent")).map((t) => t.name)).toEqual(["current_date_time"]);
  });
});
