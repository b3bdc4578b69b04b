// Tool nodes: what agents call. Each builds a LangChain StructuredTool (a DynamicStructuredTool with
// a zod schema), so any agent binds it with model.bindTools() and invokes it with the model's args.
//   calculator  arithmetic, evaluated by a small parser (no eval)
//   customTool  a stored Tool (/tools): `schema` declares the arguments, `func` runs in the QuickJS
//               sandbox with them as `$name` variables, plus `$vars` and `$flow`
//   chainTool   a chain (llmChain, conversationChain, …) answering the tool's `input`
// retrieverTool lives with the retrieval nodes (./retrieval.ts).
import { DynamicStructuredTool } from "@langchain/core/tools";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { tool as toolTable } from "../../db/schema";
import { badRequest } from "../../errors";
import { checkFunctionSyntax, runSandboxed } from "../../sandbox";
import type { BuildArgs, NodeDefinition, RunContext } from "../types";
import { ZodDslError, parseZodDsl } from "../zod-dsl";
import { bool, str } from "./util";

const CATEGORY = "Tools";

/** A tool name the chat completions API accepts: ^[a-zA-Z0-9_-]{1,64}$. */
export function toolName(name: string): string {
  return name.trim().replace(/[^a-zA-Z0-9_-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 64) || "tool";
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

// ---- calculator ---------------------------------------------------------------------------------

export class ArithmeticError extends Error {}

const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI, phi: (1 + Math.sqrt(5)) / 2 };
const FUNCTIONS: Record<string, [min: number, max: number, fn: (...a: number[]) => number]> = {
  abs: [1, 1, Math.abs], sqrt: [1, 1, Math.sqrt], cbrt: [1, 1, Math.cbrt], exp: [1, 1, Math.exp],
  ln: [1, 1, Math.log], log: [1, 2, (x, base) => (base === undefined ? Math.log(x) : Math.log(x) / Math.log(base))],
  log10: [1, 1, Math.log10], log2: [1, 1, Math.log2], sin: [1, 1, Math.sin], cos: [1, 1, Math.cos], tan: [1, 1, Math.tan],
  asin: [1, 1, Math.asin], acos: [1, 1, Math.acos], atan: [1, 1, Math.atan], atan2: [2, 2, Math.atan2],
  sinh: [1, 1, Math.sinh], cosh: [1, 1, Math.cosh], tanh: [1, 1, Math.tanh], floor: [1, 1, Math.floor], ceil: [1, 1, Math.ceil],
  round: [1, 1, Math.round], trunc: [1, 1, Math.trunc], sign: [1, 1, Math.sign], pow: [2, 2, Math.pow],
  min: [1, 100, Math.min], max: [1, 100, Math.max], hypot: [1, 100, Math.hypot], fac: [1, 1, (n) => factorial(n)],
};

function factorial(n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new ArithmeticError("factorial needs a non-negative integer");
  if (n > 170) return Infinity;
  let r = 1;
  for (let i = 2; i <= n; i++) r *= i;
  return r;
}

/**
 * Evaluates an arithmetic expression: numbers (1.5, 2e3, 1_000), + - * / % ^ ** (power, right
 * associative), unary +/-, postfix ! (factorial), parentheses, constants (pi, e, tau, phi) and
 * functions (sqrt, log, sin, min, max, …). Throws ArithmeticError for anything else.
 */
export function evaluateArithmetic(source: string): number {
  if (source.length > 1000) throw new ArithmeticError("the expression is longer than 1000 characters");
  const text = source.replace(/×/g, "*").replace(/÷/g, "/").replace(/−/g, "-");
  const tokens = text.match(/\d[\d_]*(?:\.\d*)?(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?|\*\*|[A-Za-z_][A-Za-z_0-9]*|\S/gi) ?? [];
  let i = 0;
  let depth = 0;
  const peek = () => tokens[i];
  const take = (t?: string) => {
    const token = tokens[i];
    if (t !== undefined && token !== t) throw new ArithmeticError(token === undefined ? `expected "${t}" at the end` : `expected "${t}" but found "${token}"`);
    i++;
    return token;
  };
  const nested = <T>(f: () => T): T => {
    if (++depth > 200) throw new ArithmeticError("the expression is nested too deeply");
    try {
      return f();
    } finally {
      depth--;
    }
  };

  const additive = (): number =>
    nested(() => {
      let v = multiplicative();
      while (peek() === "+" || peek() === "-") v = take() === "+" ? v + multiplicative() : v - multiplicative();
      return v;
    });
  const multiplicative = (): number => {
    let v = unary();
    while (peek() === "*" || peek() === "/" || peek() === "%") {
      const op = take();
      const r = unary();
      v = op === "*" ? v * r : op === "/" ? v / r : v % r;
    }
    return v;
  };
  const unary = (): number =>
    nested(() => {
      if (peek() === "-") return take(), -unary();
      if (peek() === "+") return take(), unary();
      return power();
    });
  const power = (): number => {
    const base = postfix();
    if (peek() === "^" || peek() === "**") {
      take();
      return Math.pow(base, unary());
    }
    return base;
  };
  const postfix = (): number => {
    let v = primary();
    while (peek() === "!") {
      take();
      v = factorial(v);
    }
    return v;
  };
  const primary = (): number => {
    const t = take();
    if (t === undefined) throw new ArithmeticError("the expression ends too early");
    if (/^[\d.]/.test(t)) {
      const n = Number(t.replace(/_/g, ""));
      if (!Number.isFinite(n)) throw new ArithmeticError(`"${t}" is not a number`);
      return n;
    }
    if (t === "(") {
      const v = additive();
      take(")");
      return v;
    }
    if (/^[A-Za-z_]/.test(t)) {
      const name = t.toLowerCase();
      if (peek() === "(") {
        const fn = Object.hasOwn(FUNCTIONS, name) ? FUNCTIONS[name] : undefined;
        if (!fn) throw new ArithmeticError(`unknown function "${t}"`);
        take("(");
        const args: number[] = [];
        if (peek() !== ")") {
          args.push(additive());
          while (peek() === ",") take(), args.push(additive());
        }
        take(")");
        const [min, max, f] = fn;
        if (args.length < min || args.length > max) throw new ArithmeticError(`${name} takes ${min === max ? min : `${min} to ${max}`} argument(s)`);
        return f(...args);
      }
      if (Object.hasOwn(CONSTANTS, name)) return CONSTANTS[name];
      throw new ArithmeticError(`unknown name "${t}"`);
    }
    throw new ArithmeticError(`unexpected "${t}"`);
  };

  if (!tokens.length) throw new ArithmeticError("the expression is empty");
  const value = additive();
  if (i < tokens.length) throw new ArithmeticError(`unexpected "${tokens[i]}"`);
  return value;
}

/** The calculator's answer: the number (15 significant digits), or why it cannot be computed. */
export function calculate(expression: string): string {
  try {
    const v = evaluateArithmetic(expression);
    if (Number.isNaN(v)) return "Error: the result is not a number";
    if (!Number.isFinite(v)) return v > 0 ? "Infinity" : "-Infinity";
    return String(Number.isInteger(v) ? v : Number(v.toPrecision(15)));
  } catch (err) {
    if (err instanceof ArithmeticError) return `Error: ${err.message}`;
    throw err;
  }
}

const calculatorTool = () =>
  new DynamicStructuredTool({
    name: "calculator",
    description:
      "Useful for getting the result of a math expression. The input to this tool should be a valid mathematical expression that could be executed by a simple calculator.",
    schema: z.object({ input: z.string().describe("the expression, e.g. (2 + 3) * 4 ^ 2 / sqrt(16)") }),
    func: async ({ input }) => calculate(input),
  });

// ---- customTool ---------------------------------------------------------------------------------

type Field = { property: string; type: string; description?: string; required: boolean };

function fieldSchema(field: Field, where: string): z.ZodType {
  let schema: z.ZodType;
  switch (field.type.toLowerCase()) {
    case "string":
      schema = z.string();
      break;
    case "number":
      schema = z.number();
      break;
    case "integer":
      schema = z.number().int();
      break;
    case "boolean":
      schema = z.boolean();
      break;
    case "date":
      // Flowise declares dates; the model sends them as text.
      schema = z.string().describe(`${field.description ?? ""} (a date, ISO 8601)`.trim());
      break;
    case "array":
      schema = z.array(z.any());
      break;
    case "object":
      schema = z.record(z.string(), z.any());
      break;
    default:
      throw badRequest(`${where}: argument ${field.property} has type "${field.type}", not one of string, number, integer, boolean, date, array, object`);
  }
  if (field.description && field.type.toLowerCase() !== "date") schema = schema.describe(field.description);
  return field.required ? schema : schema.optional();
}

/** Flowise's [{property, type, description, required}] (or a JSON Schema object) → fields. */
function fieldsOf(raw: string | null | undefined, where: string): Field[] {
  if (!raw || !raw.trim()) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw badRequest(`${where}: its schema is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (isObject(parsed) && isObject(parsed.properties)) {
    const required = new Set(Array.isArray(parsed.required) ? parsed.required.map(String) : []);
    return Object.entries(parsed.properties).map(([property, spec]) => {
      const s = isObject(spec) ? spec : {};
      return { property, type: typeof s.type === "string" ? s.type : "string", description: typeof s.description === "string" ? s.description : undefined, required: required.has(property) };
    });
  }
  if (!Array.isArray(parsed)) throw badRequest(`${where}: its schema must be a list of {property, type, description, required}`);
  const fields = parsed.map((item, n) => {
    if (!isObject(item) || typeof item.property !== "string" || !item.property.trim()) {
      throw badRequest(`${where}: schema entry #${n + 1} needs a property name`);
    }
    return {
      property: item.property.trim(),
      type: typeof item.type === "string" && item.type ? item.type : "string",
      description: typeof item.description === "string" && item.description ? item.description : undefined,
      required: item.required === true || item.required === "true",
    };
  });
  const seen = new Set<string>();
  for (const f of fields) {
    if (seen.has(f.property)) throw badRequest(`${where}: the schema declares ${f.property} twice`);
    seen.add(f.property);
  }
  return fields;
}

/**
 * Validates a stored tool's schema (JSON) and function (parses): the message of the first problem,
 * or undefined. Used by POST/PUT /tools and when a customTool node is built.
 */
export async function toolDefinitionProblem(schema: string | null | undefined, func: string | null | undefined): Promise<string | undefined> {
  try {
    const fields = fieldsOf(schema, "The tool");
    for (const f of fields) fieldSchema(f, "The tool");
  } catch (err) {
    return err instanceof Error ? err.message.replace(/^The tool: /, "") : String(err);
  }
  if (typeof func === "string" && func.trim()) {
    const syntax = await checkFunctionSyntax(func);
    if (syntax) return `its function does not parse: ${syntax}`;
  }
  return undefined;
}

export const flowOf = (ctx: RunContext) => ({ chatflowId: ctx.chatflowid, chatId: ctx.chatId, sessionId: ctx.sessionId, input: ctx.question });

async function customTool({ node, inputs, ctx }: BuildArgs): Promise<DynamicStructuredTool> {
  const label = `${node.data.label} (${node.id})`;
  const id = str(inputs.selectedTool);
  const inlineFunc = str(inputs.customToolFunc);
  const inlineName = str(inputs.customToolName);
  let stored: { name: string; description: string | null; schema: string | null; func: string | null } | undefined;
  if (id) {
    stored = await ctx.db
      .select({ name: toolTable.name, description: toolTable.description, schema: toolTable.schema, func: toolTable.func })
      .from(toolTable)
      .where(eq(toolTable.id, id.toLowerCase()))
      .get();
    if (!stored) throw badRequest(`${label}: the tool it selects (selectedTool ${id}) does not exist`);
  } else if (!inlineFunc || !inlineName) {
    throw badRequest(`${label} needs a tool: choose one in selectedTool`);
  }
  const name = inlineName ?? stored!.name;
  const where = `${label}: tool "${name}"`;
  const func = inlineFunc ?? stored?.func ?? "";
  if (!func.trim()) throw badRequest(`${where} has no function (func)`);

  // customToolSchema (zod code, as Flowise's node takes it) wins over the stored JSON schema.
  let schema: z.ZodObject;
  let declared: string[];
  const zodCode = str(inputs.customToolSchema);
  if (zodCode) {
    let parsed: z.ZodType;
    try {
      parsed = parseZodDsl(zodCode);
    } catch (err) {
      if (err instanceof ZodDslError) throw badRequest(`${where}: customToolSchema is not a supported zod schema: ${err.message}`);
      throw err;
    }
    if (!(parsed instanceof z.ZodObject)) throw badRequest(`${where}: customToolSchema must be a z.object({...})`);
    schema = parsed;
    declared = Object.keys(parsed.shape);
  } else {
    const fields = fieldsOf(stored?.schema, where);
    schema = z.object(Object.fromEntries(fields.map((f) => [f.property, fieldSchema(f, where)])));
    declared = fields.map((f) => f.property);
  }

  const syntax = await checkFunctionSyntax(func);
  if (syntax) throw badRequest(`${where}: its function does not parse: ${syntax}`);

  return new DynamicStructuredTool({
    name: toolName(name),
    description: str(inputs.customToolDesc) ?? str(stored?.description) ?? name,
    schema,
    returnDirect: bool(inputs.customToolReturnDirect, bool(inputs.returnDirect)),
    func: async (args: Record<string, unknown>) =>
      runSandboxed(func, { args, declared, vars: ctx.vars, flow: flowOf(ctx), env: ctx.env, signal: ctx.signal }),
  });
}

// ---- chainTool ----------------------------------------------------------------------------------

async function chainTool({ node, inputs, ctx }: BuildArgs): Promise<DynamicStructuredTool> {
  const label = `${node.data.label} (${node.id})`;
  const chain = inputs.baseChain;
  const kind = isObject(chain) && typeof chain.kind === "string" ? chain.kind : undefined;
  if (!kind) throw badRequest(`${label} needs a chain connected to its baseChain input`);
  const name = str(inputs.name);
  const description = str(inputs.description);
  if (!name) throw badRequest(`${label} needs a name`);
  if (!description) throw badRequest(`${label} needs a description (the model reads it to decide when to use the tool)`);
  return new DynamicStructuredTool({
    name: toolName(name),
    description,
    returnDirect: bool(inputs.returnDirect),
    schema: z.object({ input: z.string().describe("what to ask the chain") }),
    func: async ({ input }) => {
      // The registry imports this module: look it up when the tool runs, not when it loads.
      const { registry } = await import("../registry");
      const def = registry.get(kind);
      if (!def?.run) throw new Error(`${label}: a ${kind} cannot answer as a tool`);
      const answer = await def.run(chain, { ctx: { ...ctx, question: input } });
      return answer.text ?? "";
    },
  });
}

export const toolNodes: NodeDefinition[] = [
  { name: "calculator", category: CATEGORY, build: async () => calculatorTool() },
  { name: "customTool", category: CATEGORY, build: customTool },
  { name: "chainTool", category: CATEGORY, build: chainTool },
];
