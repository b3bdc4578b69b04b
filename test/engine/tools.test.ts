// Tool nodes on their own: the calculator's evaluator, customTool built from a stored Tool (schema →
// zod → the JSON schema a model sees; func run in the sandbox), and what makes a tool unusable (400).
import { describe, expect, it } from "vitest";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { ArithmeticError, evaluateArithmetic } from "../../src/engine/tools/arithmetic";
import { calculate } from "../../src/engine/tools/calculator";
import { toolName } from "../../src/engine/tools/names";
import { registry } from "../../src/engine/chatflow/registry";
import type { FlowNode, RunContext } from "../../src/engine";
import { tool as toolTable } from "../../src/db/schema";
import { createTool } from "../../src/services/tools";
import { db, makeCtx } from "./helpers";

function node(name: string, inputs: Record<string, unknown>, label = name): FlowNode {
  return { id: `${name}_0`, data: { id: `${name}_0`, name, label, category: "Tools", inputs } };
}

async function build(name: string, inputs: Record<string, unknown>, ctx: RunContext = makeCtx("q")): Promise<StructuredToolInterface> {
  const n = node(name, inputs, name === "customTool" ? "Custom Tool" : name);
  return (await registry.get(name)!.build({ node: n, inputs, ctx })) as StructuredToolInterface;
}

async function buildError(name: string, inputs: Record<string, unknown>): Promise<{ status: number; message: string }> {
  try {
    await build(name, inputs);
  } catch (err) {
    return err as { status: number; message: string };
  }
  throw new Error("expected the build to fail");
}

/** A row straight into D1 (as if stored before validation existed), bypassing POST /tools. */
async function rawTool(values: { name: string; schema?: string | null; func?: string | null; description?: string }): Promise<string> {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  await db()
    .insert(toolTable)
    .values({ id, createdDate: now, updatedDate: now, description: null, schema: null, func: null, ...values });
  return id;
}

describe("calculator", () => {
  it("evaluates arithmetic without eval", () => {
    const cases: Array<[string, number]> = [
      ["2+2", 4],
      ["6*7", 42],
      ["(2 + 3) * 4 ^ 2 / sqrt(16)", 20],
      ["2^3^2", 512],
      ["-2^2", -4],
      ["2**10", 1024],
      ["10 % 4", 2],
      ["5!", 120],
      ["1_000 * 1.5e2", 150000],
      [".5 + 0.25", 0.75],
      ["max(1, 9, 3) - min(4, 2)", 7],
      ["log(e) + log10(1000) + log(8, 2)", 7],
      ["round(pi * 100)", 314],
      ["3 × 4 ÷ 2", 6],
      ["abs(-3) + floor(2.7) + ceil(2.1)", 8],
    ];
    for (const [expr, value] of cases) expect(evaluateArithmetic(expr), expr).toBeCloseTo(value, 10);
  });

  it("answers with 15 significant digits, Infinity, or an error it can read", () => {
    expect(calculate("0.1 + 0.2")).toBe("0.3");
    expect(calculate("1/3")).toBe("0.333333333333333");
    expect(calculate("1/0")).toBe("Infinity");
    expect(calculate("sqrt(-1)")).toBe("Error: the result is not a number");
    expect(calculate("2 +")).toBe("Error: the expression ends too early");
    expect(calculate("constructor.constructor('return process')()")).toBe('Error: unknown name "constructor"');
    expect(calculate("toString(1)")).toBe('Error: unknown function "toString"');
    expect(calculate("globalThis")).toBe('Error: unknown name "globalThis"');
    expect(calculate("1; fetch('http://x')")).toBe('Error: unexpected ";"');
    expect(calculate(`${"(".repeat(300)}1${")".repeat(300)}`)).toBe("Error: the expression is nested too deeply");
    expect(() => evaluateArithmetic("x".repeat(1001))).toThrow(ArithmeticError);
  });

  it("is a tool named calculator taking {input}", async () => {
    const calc = await build("calculator", {});
    expect(calc.name).toBe("calculator");
    expect(await calc.invoke({ input: "6*7" })).toBe("42");
    const spec = convertToOpenAITool(calc) as { function: { parameters: unknown } };
    expect(spec.function.parameters).toMatchObject({ type: "object", properties: { input: { type: "string" } }, required: ["input"] });
  });
});

describe("customTool", () => {
  const weatherSchema = JSON.stringify([
    { id: 0, property: "city", type: "string", description: "The city", required: true },
    { id: 1, property: "days", type: "number", description: "How many days", required: false },
    { id: 2, property: "metric", type: "boolean", description: "Celsius?", required: false },
  ]);

  it("builds a tool from the stored Tool: name, description, zod schema from its schema, func in the sandbox", async () => {
    const stored = await createTool(
      { db: db() },
      {
        name: "get weather",
        description: "Weather for a city",
        schema: weatherSchema,
        func: "return `${$city}: ${$days ?? 1} day(s), ${$metric ? 'C' : 'F'}, unit ${$vars.unit}, flow ${$flow.chatflowId}, asked ${$flow.input}`;",
      },
    );
    const ctx = makeCtx("what is the weather?", { vars: { unit: "km" } });
    const t = await build("customTool", { selectedTool: stored.id }, ctx);
    expect(t.name).toBe("get_weather");
    expect(t.description).toBe("Weather for a city");
    expect(t.returnDirect).toBe(false);
    const spec = convertToOpenAITool(t) as { function: { name: string; parameters: Record<string, unknown> } };
    expect(spec.function.parameters).toMatchObject({
      type: "object",
      properties: {
        city: { type: "string", description: "The city" },
        days: { type: "number", description: "How many days" },
        metric: { type: "boolean" },
      },
      required: ["city"],
    });
    expect(await t.invoke({ city: "Oslo" })).toBe(`Oslo: 1 day(s), F, unit km, flow ${ctx.chatflowid}, asked what is the weather?`);
    expect(await t.invoke({ city: "Rome", days: 3, metric: true })).toMatch(/^Rome: 3 day\(s\), C/);
    await expect(t.invoke({ days: 2 })).rejects.toThrow("Received tool input did not match expected schema");
  });

  it("the node's customToolName / customToolDesc / customToolReturnDirect / customToolSchema inputs win", async () => {
    const stored = await createTool(
      { db: db() },
      {
        name: "stored_name",
        description: "stored",
        schema: weatherSchema,
        func: "return JSON.stringify({ q: $query, n: $n })",
      },
    );
    const t = await build("customTool", {
      selectedTool: stored.id,
      customToolName: "search_docs",
      customToolDesc: "Searches the docs",
      customToolReturnDirect: true,
      customToolSchema: 'z.object({ query: z.string().describe("what to look for"), n: z.number().int().optional() })',
    });
    expect([t.name, t.description, t.returnDirect]).toEqual(["search_docs", "Searches the docs", true]);
    expect(await t.invoke({ query: "zod", n: 2 })).toBe('{"q":"zod","n":2}');
  });

  it("a tool without a schema takes no arguments; objects are JSON-stringified", async () => {
    const stored = await createTool({ db: db() }, { name: "now", func: "return { ok: true, list: [1, 2] }" });
    const t = await build("customTool", { selectedTool: stored.id });
    expect(await t.invoke({})).toBe('{"ok":true,"list":[1,2]}');
  });

  it("400s: no tool selected, a missing stored tool (named), a schema that is not JSON or not a list, a func that does not parse or is empty", async () => {
    expect(await buildError("customTool", {})).toMatchObject({
      status: 400,
      message: "Custom Tool (customTool_0) needs a tool: choose one in selectedTool",
    });
    const missing = crypto.randomUUID();
    expect(await buildError("customTool", { selectedTool: missing })).toMatchObject({
      status: 400,
      message: `Custom Tool (customTool_0): the tool it selects (selectedTool ${missing}) does not exist`,
    });
    const badJson = await rawTool({ name: "broken_schema", schema: "[{property: city}]", func: "return 1" });
    expect(await buildError("customTool", { selectedTool: badJson })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^Custom Tool \(customTool_0\): tool "broken_schema": its schema is not valid JSON/),
    });
    const notList = await rawTool({ name: "odd_schema", schema: '"city"', func: "return 1" });
    expect((await buildError("customTool", { selectedTool: notList })).message).toContain(
      "its schema must be a list of {property, type, description, required}",
    );
    const badType = await rawTool({ name: "typed", schema: '[{"property":"when","type":"timestamp"}]', func: "return 1" });
    expect((await buildError("customTool", { selectedTool: badType })).message).toContain('argument when has type "timestamp"');
    const badFunc = await rawTool({ name: "broken_func", func: "const x = ;\nreturn x" });
    expect(await buildError("customTool", { selectedTool: badFunc })).toMatchObject({
      status: 400,
      message: expect.stringMatching(
        /^Custom Tool \(customTool_0\): tool "broken_func": its function does not parse: SyntaxError: .+ \(line 1\)$/,
      ),
    });
    const noFunc = await rawTool({ name: "empty" });
    expect((await buildError("customTool", { selectedTool: noFunc })).message).toBe(
      'Custom Tool (customTool_0): tool "empty" has no function (func)',
    );
    const stored = await createTool({ db: db() }, { name: "ok_tool", func: "return 1" });
    expect((await buildError("customTool", { selectedTool: stored.id, customToolSchema: "z.string(" })).message).toContain(
      "customToolSchema is not a supported zod schema",
    );
  });

  it("tool names become what the chat completions API accepts", () => {
    expect(toolName("get weather!")).toBe("get_weather");
    expect(toolName("  todays_date_time  ")).toBe("todays_date_time");
    expect(toolName("???")).toBe("tool");
    expect(toolName("x".repeat(80))).toHaveLength(64);
    // Vertex AI: a function's name starts with a letter or an underscore.
    expect(toolName("2fa check")).toBe("_2fa_check");
    expect(toolName("-x")).toBe("_-x");
    expect(toolName("9".repeat(80))).toMatch(/^_9{63}$/);
  });
});

describe("chainTool", () => {
  it("needs a chain, a name and a description", async () => {
    expect((await buildError("chainTool", { name: "n", description: "d" })).message).toBe(
      "chainTool (chainTool_0) needs a chain connected to its baseChain input",
    );
    const chain = { kind: "llmChain" };
    expect((await buildError("chainTool", { baseChain: chain, description: "d" })).message).toBe("chainTool (chainTool_0) needs a name");
    expect((await buildError("chainTool", { baseChain: chain, name: "n" })).message).toContain("needs a description");
  });
});
