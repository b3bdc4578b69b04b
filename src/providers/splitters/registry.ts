// Text splitters by Flowise node name, with Flowise's input names (chunkSize, chunkOverlap,
// separators / separator, encodingName). Invalid settings are a 400, not a failed run.
import { CharacterTextSplitter, MarkdownTextSplitter, RecursiveCharacterTextSplitter, type TextSplitter } from "@langchain/textsplitters";
import { fail } from "../../errors";
import { codeSplitter } from "./code";
import { HtmlToMarkdownTextSplitter } from "./html-markdown";
import { pacedLength } from "./paced";
import { LocalTokenTextSplitter } from "./token";

export interface SplitterDefinition {
  name: string;
  build(config: Record<string, unknown>): TextSplitter;
}

export const DEFAULT_SPLITTER = "recursiveCharacterTextSplitter";

function int(config: Record<string, unknown>, key: string, fallback: number, min: number): number {
  const v = config[key];
  if (v === undefined || v === null || v === "") return fallback;
  const n = typeof v === "number" ? v : Number(v);
  if (!Number.isInteger(n) || n < min)
    throw fail("INVALID_FLOW", `Splitter ${key} must be a whole number of at least ${min}; got ${JSON.stringify(v)}`);
  return n;
}

/** chunkSize / chunkOverlap as Flowise names them (defaults 1000 / 200), overlap below size. */
function sizes(config: Record<string, unknown>, defaults = { chunkSize: 1000, chunkOverlap: 200 }) {
  const chunkSize = int(config, "chunkSize", defaults.chunkSize, 1);
  const chunkOverlap = int(config, "chunkOverlap", Math.min(defaults.chunkOverlap, chunkSize - 1), 0);
  if (chunkOverlap >= chunkSize)
    throw fail("INVALID_FLOW", `Splitter chunkOverlap (${chunkOverlap}) must be smaller than chunkSize (${chunkSize})`);
  return { chunkSize, chunkOverlap };
}

/** Flowise's `separators`: a JSON array string (or an array). Escapes such as "\\n" are honoured. */
function separators(value: unknown): string[] | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  let list: unknown = value;
  if (typeof value === "string") {
    try {
      list = JSON.parse(value);
    } catch {
      throw fail("INVALID_FLOW", 'Splitter separators must be a JSON array of strings, e.g. ["\\n\\n", "\\n", " ", ""]');
    }
  }
  if (!Array.isArray(list) || !list.every((s) => typeof s === "string"))
    throw fail("INVALID_FLOW", "Splitter separators must be an array of strings");
  return list as string[];
}

const unescapeSeparator = (s: string): string => s.replace(/\\n/g, "\n").replace(/\\t/g, "\t").replace(/\\r/g, "\r");

const definitions: SplitterDefinition[] = [
  {
    name: "recursiveCharacterTextSplitter",
    build: (config) =>
      new RecursiveCharacterTextSplitter({
        ...sizes(config),
        lengthFunction: pacedLength(),
        ...(separators(config.separators) ? { separators: separators(config.separators) } : {}),
      }),
  },
  {
    name: "characterTextSplitter",
    build: (config) => {
      const separator = typeof config.separator === "string" && config.separator !== "" ? unescapeSeparator(config.separator) : undefined;
      return new CharacterTextSplitter({
        ...sizes(config),
        lengthFunction: pacedLength(),
        ...(separator !== undefined ? { separator } : {}),
      });
    },
  },
  {
    name: "codeTextSplitter",
    build: (config) =>
      codeSplitter(typeof config.language === "string" ? config.language : "", { ...sizes(config), lengthFunction: pacedLength() }),
  },
  { name: "markdownTextSplitter", build: (config) => new MarkdownTextSplitter({ ...sizes(config), lengthFunction: pacedLength() }) },
  {
    name: "htmlToMarkdownTextSplitter",
    build: (config) => new HtmlToMarkdownTextSplitter({ ...sizes(config), lengthFunction: pacedLength() }),
  },
  {
    name: "tokenTextSplitter",
    build: (config) =>
      new LocalTokenTextSplitter({
        ...sizes(config, { chunkSize: 1000, chunkOverlap: 200 }),
        encodingName: typeof config.encodingName === "string" && config.encodingName ? config.encodingName : "gpt2",
      }),
  },
];

const byName = new Map(definitions.map((d) => [d.name, d]));

export const supportedSplitters = (): string[] => [...byName.keys()].sort();

function splitterDefinition(name: string): SplitterDefinition {
  const def = byName.get(name);
  if (!def) throw fail("UNKNOWN_NODE", `Unknown splitter "${name}". Supported: ${supportedSplitters().join(", ")}`);
  return def;
}

export const buildSplitter = (name: string, config: Record<string, unknown>): TextSplitter => splitterDefinition(name).build(config);
