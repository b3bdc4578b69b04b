// The calculator tool: arithmetic, parsed (./arithmetic.ts), never evaluated as code.
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { ArithmeticError, evaluateArithmetic } from "./arithmetic";

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

export const calculatorTool = () =>
  new DynamicStructuredTool({
    name: "calculator",
    description:
      "Useful for getting the result of a math expression. The input to this tool should be a valid mathematical " +
      "expression that could be executed by a simple calculator.",
    schema: z.object({ input: z.string().describe("the expression, e.g. (2 + 3) * 4 ^ 2 / sqrt(16)") }),
    func: async ({ input }) => calculate(input),
  });
