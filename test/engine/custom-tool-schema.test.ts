// A custom tool's schema as Flowise's Tools dialog saves it: "Add Item" makes a row
// {id, property: "", description: "", type: "", required: false}, and a row left blank is saved as is.
// Flowise keeps it and its run ignores it; so does edgeflow: POST/PUT /tools store it, and a Tool Agent
// offers the model the tool's named arguments only (never one named ""). What is truly malformed (not a
// list, an entry that is not an object, a property or type that is not text) is still a 400.
import { describe, expect, it } from "vitest";
import { call, expectError, json } from "../helpers";
import { callOf, customToolNode, toolAgentFlow } from "./agents-flows";
import { credential, marker, requestsWith } from "./helpers";

const BLANK_ROW = { id: 2, property: "", description: "", type: "", required: false };
const UI_SCHEMA = JSON.stringify([{ id: 1, property: "city", description: "a city", type: "string", required: true }, BLANK_ROW]);

type Offered = { function: { name: string; parameters: { properties: Record<string, unknown>; required?: string[] } } };
const offeredTool = (body: unknown, name: string) => (body as { tools: Offered[] }).tools.find((t) => t.function.name === name)!;

async function agentWith(toolId: string): Promise<string> {
  const openai = await credential("openAIApi", { openAIApiKey: "sk-custom-schema" });
  const flowData = toolAgentFlow({ credential: openai, calculator: false, memory: false, nodes: [customToolNode("customTool_0", toolId)] });
  return (await json("POST", "/chatflows", { body: { name: "custom tool schema", flowData } })).id;
}

describe("a custom tool's schema with a blank row, as Flowise's Tools dialog saves it", () => {
  it("POST /tools stores it as sent; PUT /tools takes it too", async () => {
    const tool = await json("POST", "/tools", {
      body: { name: "weather_blank", description: "weather", schema: UI_SCHEMA, func: "return `${$city} is sunny`" },
    });
    expect(tool.schema).toBe(UI_SCHEMA);
    expect((await json("GET", `/tools/${tool.id}`)).schema).toBe(UI_SCHEMA);

    const twoBlank = JSON.stringify([BLANK_ROW, { ...BLANK_ROW, id: 3, property: "   " }]);
    expect((await json("PUT", `/tools/${tool.id}`, { body: { schema: twoBlank } })).schema).toBe(twoBlank);
    expect((await json("GET", `/tools/${tool.id}`)).schema).toBe(twoBlank);
  });

  it("a Tool Agent offers the model the named arguments only; the tool runs with them", async () => {
    const tool = await json("POST", "/tools", {
      body: { name: "weather_blank", description: "weather", schema: UI_SCHEMA, func: "return `${$city} is sunny`" },
    });
    const id = await agentWith(tool.id);
    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `${callOf("weather_blank", { city: "Lyon" })} ${m}` } });
    expect(answer.text).toBe("tools said: Lyon is sunny");
    expect(answer.usedTools).toEqual([{ tool: "weather_blank", toolInput: { city: "Lyon" }, toolOutput: "Lyon is sunny" }]);

    const [first] = await requestsWith(m);
    const { parameters } = offeredTool(first.body, "weather_blank").function;
    expect(Object.keys(parameters.properties)).toEqual(["city"]);
    expect(parameters.properties.city).toMatchObject({ type: "string", description: "a city" });
    expect(parameters.required).toEqual(["city"]);
  });

  it("a schema of one blank row: a tool without arguments, which runs", async () => {
    const tool = await json("POST", "/tools", {
      body: { name: "ping_blank", description: "ping", schema: JSON.stringify([{ ...BLANK_ROW, id: 1 }]), func: "return 'pong'" },
    });
    const id = await agentWith(tool.id);
    const m = marker();
    const answer = await json("POST", `/prediction/${id}`, { body: { question: `${callOf("ping_blank", {})} ${m}` } });
    expect(answer.text).toBe("tools said: pong");
    const [first] = await requestsWith(m);
    const { parameters } = offeredTool(first.body, "ping_blank").function;
    expect(parameters.properties).toEqual({});
  });

  it("still 400 for what is malformed: not a list, an entry not an object, a property or type not text", async () => {
    const post = (schema: string) => call("POST", "/tools", { body: { name: "bad_schema", func: "return 1", schema } });
    const cases: Array<[string, RegExp]> = [
      ['"just text"', /schema must be a list of \{property, type, description, required\}/],
      ["[5]", /schema entry #1 must be an object/],
      ['[{"property":"a","type":"string"}, {"property":7,"type":"string"}]', /schema entry #2: its property must be text, not 7/],
      ['[{"property":"a","type":true}]', /schema entry #1: its type must be text, not true/],
      ['[{"property":"a","type":"string"},{"property":" a ","type":"number"}]', /declares a twice/],
      ['[{"property":"a","type":"uuid"}]', /argument a has type "uuid"/],
    ];
    for (const [schema, message] of cases) {
      const err = await expectError(await post(schema), 400);
      expect(err.message, schema).toMatch(message);
    }
  });
});
