// sequentialThinkingMCP: @modelcontextprotocol/server-sequential-thinking (2025.12.18, the version
// Flowise pins) natively. Its one tool records each thought in the server's history (and a branch's,
// for branchFromThought + branchId) and answers the counts as JSON. Flowise starts the server once
// per node build, so the history lives as long as one built flow: here, one run's build of the node.
import type { NativeMcpServer } from "./native";
import { textResult } from "./native";

const DESCRIPTION = `A detailed tool for dynamic and reflective problem-solving through thoughts.
This tool helps analyze problems through a flexible thinking process that can adapt and evolve.
Each thought can build on, question, or revise previous insights as understanding deepens.

When to use this tool:
- Breaking down complex problems into steps
- Planning and design with room for revision
- Analysis that might need course correction
- Problems where the full scope might not be clear initially
- Problems that require a multi-step solution
- Tasks that need to maintain context over multiple steps
- Situations where irrelevant information needs to be filtered out

Key features:
- You can adjust total_thoughts up or down as you progress
- You can question or revise previous thoughts
- You can add more thoughts even after reaching what seemed like the end
- You can express uncertainty and explore alternative approaches
- Not every thought needs to build linearly - you can branch or backtrack
- Generates a solution hypothesis
- Verifies the hypothesis based on the Chain of Thought steps
- Repeats the process until satisfied
- Provides a correct answer

Parameters explained:
- thought: Your current thinking step, which can include:
  * Regular analytical steps
  * Revisions of previous thoughts
  * Questions about previous decisions
  * Realizations about needing more analysis
  * Changes in approach
  * Hypothesis generation
  * Hypothesis verification
- nextThoughtNeeded: True if you need more thinking, even if at what seemed like the end
- thoughtNumber: Current number in sequence (can go beyond initial total if needed)
- totalThoughts: Current estimate of thoughts needed (can be adjusted up/down)
- isRevision: A boolean indicating if this thought revises previous thinking
- revisesThought: If is_revision is true, which thought number is being reconsidered
- branchFromThought: If branching, which thought number is the branching point
- branchId: Identifier for the current branch (if any)
- needsMoreThoughts: If reaching end but realizing more thoughts needed

You should:
1. Start with an initial estimate of needed thoughts, but be ready to adjust
2. Feel free to question or revise previous thoughts
3. Don't hesitate to add more thoughts if needed, even at the "end"
4. Express uncertainty when present
5. Mark thoughts that revise previous thinking or branch into new paths
6. Ignore information that is irrelevant to the current step
7. Generate a solution hypothesis when appropriate
8. Verify the hypothesis based on the Chain of Thought steps
9. Repeat the process until satisfied with the solution
10. Provide a single, ideally correct answer as the final output
11. Only set nextThoughtNeeded to false when truly done and a satisfactory answer is reached`;

const count = (description: string) => ({ type: "integer", minimum: 1, description });
const flag = (description: string) => ({ type: "boolean", description });

const SCHEMA = {
  type: "object",
  properties: {
    thought: { type: "string", description: "Your current thinking step" },
    nextThoughtNeeded: flag("Whether another thought step is needed"),
    thoughtNumber: count("Current thought number (numeric value, e.g., 1, 2, 3)"),
    totalThoughts: count("Estimated total thoughts needed (numeric value, e.g., 5, 10)"),
    isRevision: flag("Whether this revises previous thinking"),
    revisesThought: count("Which thought is being reconsidered"),
    branchFromThought: count("Branching point thought number"),
    branchId: { type: "string", description: "Branch identifier" },
    needsMoreThoughts: flag("If more thoughts are needed"),
  },
  required: ["thought", "nextThoughtNeeded", "thoughtNumber", "totalThoughts"],
};

type Thought = Record<string, unknown> & { thoughtNumber: number; totalThoughts: number };

const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 1;
const OPTIONAL: [string, (v: unknown) => boolean, string][] = [
  ["isRevision", (v) => typeof v === "boolean", "boolean"],
  ["revisesThought", isCount, "integer >= 1"],
  ["branchFromThought", isCount, "integer >= 1"],
  ["branchId", (v) => typeof v === "string", "string"],
  ["needsMoreThoughts", (v) => typeof v === "boolean", "boolean"],
];

/** The server's input validation (zod in the package): the first problem, else undefined. */
function invalid(a: Record<string, unknown>): string | undefined {
  if (typeof a.thought !== "string") return "thought: expected string";
  if (typeof a.nextThoughtNeeded !== "boolean") return "nextThoughtNeeded: expected boolean";
  if (!isCount(a.thoughtNumber)) return "thoughtNumber: expected integer >= 1";
  if (!isCount(a.totalThoughts)) return "totalThoughts: expected integer >= 1";
  for (const [key, ok, what] of OPTIONAL) if (a[key] !== undefined && !ok(a[key])) return `${key}: expected ${what}`;
  return undefined;
}

export const sequentialThinkingServer: NativeMcpServer = {
  node: "sequentialThinkingMCP",
  tools: [{ name: "sequentialthinking", description: DESCRIPTION, inputSchema: SCHEMA }],
  async open() {
    const history: Thought[] = [];
    const branches: Record<string, Thought[]> = {};
    return async (_tool, args) => {
      const problem = invalid(args);
      if (problem)
        return textResult(`MCP error -32602: Input validation error: Invalid arguments for tool sequentialthinking: ${problem}`, true);
      const input = { ...args } as Thought;
      if (input.thoughtNumber > input.totalThoughts) input.totalThoughts = input.thoughtNumber;
      history.push(input);
      const branchId = typeof input.branchId === "string" ? input.branchId : undefined;
      if (input.branchFromThought && branchId) (branches[branchId] ??= []).push(input);
      return textResult({
        thoughtNumber: input.thoughtNumber,
        totalThoughts: input.totalThoughts,
        nextThoughtNeeded: input.nextThoughtNeeded,
        branches: Object.keys(branches),
        thoughtHistoryLength: history.length,
      });
    };
  },
};
