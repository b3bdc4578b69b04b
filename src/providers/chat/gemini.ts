// chatGoogleGenerativeAI: Google's native Gemini API over fetch — generateContent, and
// streamGenerateContent?alt=sse for streaming; system prompt as systemInstruction, images as
// inlineData / fileData, tools as functionDeclarations with functionCall / functionResponse parts.
// The key goes in the x-goog-api-key header, never in the URL (URLs end up in logs).
import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { fail } from "../../errors";
import { isObject } from "../../lib/inputs";
import type { RemoteModelFields } from "./base";
import { EMPTY_USER_TEXT, contentText, pairToolCalls } from "./messages";
import { type WireRequest, messageOf } from "./http";
import { type NativeCallOptions, NativeChatModel, dataUrl, imageUrlOf } from "./native";
import { forcedToolName, toolChoiceMode } from "./tool-choice";

export interface GeminiFields extends RemoteModelFields {
  /** …/v1beta/models */
  baseUrl: string;
  apiKey?: string;
  topK?: number;
  safetySettings?: Array<{ category: string; threshold: string }>;
  /** Named in errors (default "Google Gemini"; Vertex AI's models say "Google Vertex AI"). */
  provider?: string;
}

type Part = Record<string, unknown>;
type Content = { role: "user" | "model"; parts: Part[] };

/** Flowise's multiOptions (a JSON array string, an array, or one value) → strings. */
function options(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v !== "string" || !v.trim()) return [];
  try {
    const parsed = JSON.parse(v);
    return Array.isArray(parsed) ? parsed.map(String) : [String(parsed)];
  } catch {
    return v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  }
}

/** harmCategory[i] is blocked at harmBlockThreshold[i], as Flowise pairs them. */
export function safetySettingsOf(categories: unknown, thresholds: unknown): GeminiFields["safetySettings"] {
  const c = options(categories);
  const t = options(thresholds);
  if (c.length !== t.length)
    throw fail("INVALID_FLOW", "chatGoogleGenerativeAI: Harm Category & Harm Block Threshold are not the same length");
  return c.length ? c.map((category, i) => ({ category, threshold: t[i] })) : undefined;
}

/** The fields of Gemini's Schema (a subset of OpenAPI 3.0): the API refuses any other name as an unknown field. */
const SCHEMA_FIELDS = new Set([
  ...["type", "format", "title", "description", "nullable", "enum", "items", "minItems", "maxItems", "properties", "required"],
  ...["minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering", "default"],
  ...["minimum", "maximum"],
]);

/**
 * A JSON schema (zod's, a custom tool's, an MCP server's) in Gemini's dialect: JSON Schema keywords it lacks
 * ($schema, additionalProperties, propertyNames of a record, const, exclusiveMinimum, $ref…) are left out,
 * `type: [T, "null"]` (a nullable field) becomes `type: T, nullable: true`, a `const` a one-value enum; a
 * string keeps only the formats Gemini takes (enum, date-time), an enum only string values of a string.
 */
function geminiSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "properties" && isObject(v))
      out.properties = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, geminiSchema(s)]));
    else if (k === "items") out.items = geminiSchema(Array.isArray(v) ? v[0] : v);
    else if (k === "anyOf" && Array.isArray(v)) out.anyOf = v.map(geminiSchema);
    else if (k === "type" && Array.isArray(v)) {
      const types = v.filter((t) => t !== "null");
      if (types.length === 1) out.type = types[0];
      else if (types.length) out.anyOf = types.map((type) => ({ type }));
      if (types.length < v.length) out.nullable = true;
    } else if (k === "const" && typeof v === "string") out.enum = [v];
    else if (SCHEMA_FIELDS.has(k)) out[k] = v;
  }
  // Gemini takes `properties` only with type OBJECT and `enum` only with STRING: JSON Schema may leave the type implied.
  if (out.type === undefined && out.properties !== undefined) out.type = "object";
  const strings = Array.isArray(out.enum) && out.enum.every((e) => typeof e === "string");
  if (out.type === undefined && strings) out.type = "string";
  const isString = String(out.type).toLowerCase() === "string";
  if (out.format !== undefined && isString && !["enum", "date-time"].includes(String(out.format))) delete out.format;
  if (out.enum !== undefined && !(isString && strings)) delete out.enum;
  return out;
}

/** A text part, or none for blank text (it carries nothing; Vertex AI refuses an empty one). */
const textParts = (text: string): Part[] => (text.trim() ? [{ text }] : []);

function userParts(content: unknown): Part[] {
  const parts: Part[] = [];
  for (const part of Array.isArray(content) ? (content as Array<Record<string, unknown> | string>) : [contentText(content)]) {
    if (typeof part === "string") parts.push(...textParts(part));
    else if (part?.type === "text") parts.push(...textParts(String(part.text ?? "")));
    else if (part?.type === "image_url") {
      const url = imageUrlOf(part);
      const inline = url ? dataUrl(url) : undefined;
      if (inline) parts.push({ inlineData: { mimeType: inline.mime, data: inline.data } });
      else if (url) parts.push({ fileData: { mimeType: "image/*", fileUri: url } });
    }
  }
  return parts.length ? parts : textParts(EMPTY_USER_TEXT);
}

function responseOf(text: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed;
  } catch {
    // plain text
  }
  return { content: text };
}

/** LangChain messages → Gemini's systemInstruction and user/model contents. */
export function toGeminiContents(messages: BaseMessage[]): { system?: string; contents: Content[] } {
  const system: string[] = [];
  const contents: Content[] = [];
  const names = new Map<string, string>(); // tool call id → function name, for functionResponse
  const push = (role: Content["role"], parts: Part[]) => {
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const m of pairToolCalls(messages)) {
    const type = m.getType();
    if (type === "system") system.push(contentText(m.content));
    else if (type === "ai") {
      const parts: Part[] = textParts(contentText(m.content));
      for (const c of (m as AIMessage).tool_calls ?? []) {
        if (c.id) names.set(c.id, c.name);
        parts.push({ functionCall: { name: c.name, args: c.args ?? {} } });
      }
      if (parts.length) push("model", parts);
    } else if (type === "tool") {
      const t = m as unknown as { tool_call_id?: string; name?: string };
      const name = (t.tool_call_id && names.get(t.tool_call_id)) ?? t.name ?? "tool";
      push("user", [{ functionResponse: { name, response: responseOf(contentText(m.content)) } }]);
    } else push("user", userParts(m.content));
  }
  // Gemini needs contents ("contents is not specified"): a system prompt alone is asked with a stand-in user turn.
  if (!contents.length) push("user", textParts(EMPTY_USER_TEXT));
  const prompt = system.filter((s) => s.trim()).join("\n\n");
  return { system: prompt || undefined, contents };
}

function toolConfig(choice: unknown): Record<string, unknown> | undefined {
  const name = forcedToolName(choice);
  if (name) return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [name] } };
  const mode = toolChoiceMode(choice);
  if (mode === "none") return { functionCallingConfig: { mode: "NONE" } };
  return mode === "required" ? { functionCallingConfig: { mode: "ANY" } } : undefined;
}

export class GeminiChatModel extends NativeChatModel {
  readonly provider: string;
  readonly baseUrl: string;
  topK?: number;
  safetySettings?: GeminiFields["safetySettings"];
  private readonly apiKey?: string;

  static lc_name() {
    return "GeminiChatModel";
  }

  constructor(fields: GeminiFields) {
    super(fields);
    this.provider = fields.provider ?? "Google Gemini";
    this.baseUrl = fields.baseUrl;
    this.apiKey = fields.apiKey;
    this.topK = fields.topK;
    this.safetySettings = fields.safetySettings;
  }

  _llmType(): string {
    return "google-gemini";
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<NativeCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, NativeCallOptions> {
    const declarations = tools.map((t) => {
      const fn = (convertToOpenAITool(t as never) as { function: { name: string; description?: string; parameters?: unknown } }).function;
      return { name: fn.name, description: fn.description ?? "", parameters: geminiSchema(fn.parameters) };
    });
    return this.withConfig({ tools: [{ functionDeclarations: declarations }], ...kwargs });
  }

  override invocationParams(options?: this["ParsedCallOptions"]): Record<string, unknown> {
    const generationConfig: Record<string, unknown> = {};
    if (this.temperature !== undefined) generationConfig.temperature = this.temperature;
    if (this.maxTokens !== undefined) generationConfig.maxOutputTokens = this.maxTokens;
    if (this.topP !== undefined) generationConfig.topP = this.topP;
    if (this.topK !== undefined) generationConfig.topK = this.topK;
    const stop = options?.stop ?? this.stop;
    if (stop?.length) generationConfig.stopSequences = stop;
    const params: Record<string, unknown> = { generationConfig };
    if (this.safetySettings?.length) params.safetySettings = this.safetySettings;
    if (options?.tools?.length) {
      params.tools = options.tools;
      const config = toolConfig(options.tool_choice);
      if (config) params.toolConfig = config;
    }
    return params;
  }

  /** A provider may echo the key it was sent. */
  protected secrets(): string[] {
    return this.apiKey ? [this.apiKey] : [];
  }

  protected request(messages: BaseMessage[], options: this["ParsedCallOptions"], stream: boolean): WireRequest {
    const { system, contents } = toGeminiContents(messages);
    const model = encodeURIComponent(this.model.replace(/^models\//, ""));
    const url = `${this.baseUrl}/${model}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`;
    const headers: Record<string, string> = this.apiKey ? { "x-goog-api-key": this.apiKey } : {};
    const body = { contents, ...(system ? { systemInstruction: { parts: [{ text: system }] } } : {}), ...this.invocationParams(options) };
    return { url, headers, body };
  }

  /** The first candidate's parts; a blocked prompt or an error body → 502. */
  private partsOf(json: Record<string, unknown>): { parts: Part[]; finish?: string } {
    if (json.error) throw fail("MODEL_FAILED", `${this.provider}: ${messageOf(json.error)}`);
    const candidate = (json.candidates as Array<Record<string, unknown>> | undefined)?.[0];
    const blocked = (json.promptFeedback as { blockReason?: string } | undefined)?.blockReason;
    if (!candidate && blocked) throw fail("MODEL_FAILED", `${this.provider} blocked the prompt: ${blocked}`);
    return {
      parts: (candidate?.content as { parts?: Part[] } | undefined)?.parts ?? [],
      finish: candidate?.finishReason as string | undefined,
    };
  }

  private static usage(json: Record<string, unknown>) {
    const u = json.usageMetadata as { promptTokenCount?: number; candidatesTokenCount?: number; totalTokenCount?: number } | undefined;
    return u
      ? { input_tokens: u.promptTokenCount ?? 0, output_tokens: u.candidatesTokenCount ?? 0, total_tokens: u.totalTokenCount ?? 0 }
      : undefined;
  }

  protected result(json: Record<string, unknown>): ChatResult {
    const { parts, finish } = this.partsOf(json);
    const text = parts.map((p) => (typeof p.text === "string" && !p.thought ? p.text : "")).join("");
    const toolCalls = parts
      .filter((p) => p.functionCall)
      .map((p) => {
        const call = p.functionCall as { id?: string; name: string; args?: Record<string, unknown> };
        return { id: call.id ?? crypto.randomUUID(), name: call.name, args: call.args ?? {}, type: "tool_call" as const };
      });
    const message = new AIMessage({
      content: text,
      tool_calls: toolCalls,
      usage_metadata: GeminiChatModel.usage(json),
      response_metadata: { finish_reason: finish },
    });
    return { generations: [{ text, message, generationInfo: { finish_reason: finish } }] };
  }

  protected chunks(event: Record<string, unknown>, state: Record<string, unknown>): ChatGenerationChunk[] {
    const { parts, finish } = this.partsOf(event);
    const out: ChatGenerationChunk[] = [];
    for (const p of parts) {
      if (typeof p.text === "string" && p.text && !p.thought) {
        out.push(new ChatGenerationChunk({ text: p.text, message: new AIMessageChunk({ content: p.text, tool_call_chunks: [] }) }));
      } else if (p.functionCall) {
        // Gemini sends each call whole: one complete chunk per call, numbered across the stream.
        const call = p.functionCall as { id?: string; name: string; args?: Record<string, unknown> };
        const index = Number(state.calls ?? 0);
        state.calls = index + 1;
        const chunk = {
          index,
          id: call.id ?? crypto.randomUUID(),
          name: call.name,
          args: JSON.stringify(call.args ?? {}),
          type: "tool_call_chunk" as const,
        };
        out.push(new ChatGenerationChunk({ text: "", message: new AIMessageChunk({ content: "", tool_call_chunks: [chunk] }) }));
      }
    }
    // usageMetadata is cumulative in every event: count it once, with the finish.
    const usage = finish ? GeminiChatModel.usage(event) : undefined;
    if (finish) {
      out.push(
        new ChatGenerationChunk({
          text: "",
          message: new AIMessageChunk({
            content: "",
            tool_call_chunks: [],
            usage_metadata: usage,
            response_metadata: finish ? { finish_reason: finish } : {},
          }),
          generationInfo: finish ? { finish_reason: finish } : undefined,
        }),
      );
    }
    return out;
  }
}
