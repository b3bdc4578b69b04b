// A tool taking one text argument (`input`, as LangChain's string tools take it): the search tools,
// arXiv, the web scraper. The node's credential is read when the model calls the tool, so a flow
// whose question never needs the tool runs without the service being configured.
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { bool, isObject } from "../../core/inputs";
import { nested } from "../nested";

export interface QueryToolSpec {
  name: string;
  description: string;
  argument?: string;
  inputs: Record<string, unknown>;
  run(input: string): Promise<string>;
}

export const queryTool = ({ name, description, argument = "the search query", inputs, run }: QueryToolSpec) =>
  new DynamicStructuredTool({
    name,
    description,
    schema: z.object({ input: z.string().describe(argument) }),
    returnDirect: bool(inputs.returnDirect),
    // Under the tool's run: what `run` asks of a model (webBrowser) shows inside the tool call in a trace.
    func: nested(({ input }: { input: string }) => run(input)),
  });

export const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);

/**
 * A numeric setting as a whole number within [min, max], undefined when unset: a search service refuses
 * a value outside its documented range (a 400 on every call), so a larger setting asks for its most.
 */
export const intWithin = (v: number | undefined, min: number, max: number): number | undefined =>
  v === undefined ? undefined : Math.min(max, Math.max(min, Math.trunc(v)));

export const SEARCH_DESCRIPTION =
  "a search engine. useful for when you need to answer questions about current events. input should be a search query.";
export const NO_RESULT = "No good search result found";
