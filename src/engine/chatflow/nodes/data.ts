// Nodes that answer from data: sqlDatabaseChain (a D1 or Postgres database: ../sql) and csvAgent
// (a CSV file and JavaScript in the sandbox: ../csv). Both stream their final answer.
import { fail } from "../../../errors";
import { bool, num, str } from "../../core/inputs";
import type { FlowGraph, FlowNode } from "../../core/types";
import { type CsvAgentInstance, isCsvAgent, runCsvAgent } from "../csv/agent";
import { separatorOf } from "../csv/frame";
import { moderationsOf, requireChatModel } from "../instances";
import { DEFAULT_SAMPLE_ROWS, DEFAULT_TOP_K } from "../sql/prompts";
import { type SqlChainInstance, isSqlChain, runSqlChain } from "../sql/chain";
import { tableList } from "../sql/table-info";
import type { NodeDefinition } from "../types";
import { chainCanStream } from "./chains";
import { filesOfInput } from "./document-loaders";

/** A whole number ≥ 0 from an input, or the fallback. */
const count = (value: unknown, fallback: number): number => {
  const n = num(value);
  return n !== undefined && Number.isFinite(n) && n >= 0 ? Math.floor(n) : fallback;
};

// Both answer through their model's stream; neither has an output parser.
const canStream = (node: FlowNode, graph: FlowGraph): boolean => chainCanStream(node, graph);

export const dataNodes: NodeDefinition[] = [
  {
    name: "sqlDatabaseChain",
    category: "Chains",
    async build({ node, inputs }): Promise<SqlChainInstance> {
      const label = node.data.label;
      return {
        kind: "sqlDatabaseChain",
        label,
        model: requireChatModel(inputs.model, label),
        database: str(inputs.database) ?? "sqlite",
        url: str(inputs.url) ?? "",
        tables: { includes: tableList(inputs.includesTables), ignores: tableList(inputs.ignoreTables) },
        sampleRows: count(inputs.sampleRowsInTableInfo, DEFAULT_SAMPLE_ROWS),
        topK: count(inputs.topK, DEFAULT_TOP_K),
        customPrompt: str(inputs.customPrompt),
        // edgeflow's own input (Flowise has none): statements other than reads run only when set.
        allowWrites: bool(inputs.allowWrites),
        moderations: moderationsOf(inputs.inputModeration),
      };
    },
    async run(instance, { ctx, sink }) {
      if (isSqlChain(instance)) return runSqlChain(instance, ctx, sink);
      throw fail("INVALID_FLOW", "Sql Database Chain was not built");
    },
    canStream,
  },
  {
    name: "csvAgent",
    category: "Agents",
    async build({ node, inputs, ctx }): Promise<CsvAgentInstance> {
      const label = node.data.label;
      const files = await filesOfInput(inputs.csvFile, ctx, `${label} (${node.id})`);
      if (!files.length)
        throw fail("INVALID_FLOW", `${label} has no CSV file: set its csvFile input (a data URI or FILE-STORAGE::[names])`);
      return {
        kind: "csvAgent",
        label,
        model: requireChatModel(inputs.model, label),
        files,
        separator: separatorOf(inputs.customReadCSV),
        systemMessage: str(inputs.systemMessagePrompt),
        moderations: moderationsOf(inputs.inputModeration),
      };
    },
    async run(instance, { ctx, sink }) {
      if (isCsvAgent(instance)) return runCsvAgent(instance, ctx, sink);
      throw fail("INVALID_FLOW", "CSV Agent was not built");
    },
    canStream,
  },
];
