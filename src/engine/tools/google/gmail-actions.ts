// What the Gmail and Google Calendar nodes share: a Type input choosing which multiOptions input
// lists the chosen operations, each operation one structured tool (oauth2/api.ts), and per-operation
// node inputs that fix an argument. Flowise merges every such input over the model's arguments
// (`{...args, ...defaultParams}`), so a value set on the node wins; it does so by input name, which
// leaves most of Gmail's inputs (draftTo, messageQuery, …) and Calendar's calendar/freebusy ones
// unread and lets an event input (calendarId) reach the calendar operations. Here each operation names
// the inputs it reads and the argument each fixes; a fixed argument becomes optional for the model.
// A failing call answers Flowise's text ("Error listing drafts: …") for the model to read.
import { z } from "zod";
import { fail } from "../../../errors";
import { checkEndpoint } from "../../../lib/outbound";
import { str } from "../../core/inputs";
import { type Action, type OAuth2Api, actionTools, chosenActions, oauth2CredentialId, serviceUrl } from "../oauth2/api";
import { ToolCallError } from "../service";
import type { ToolDeps } from "../types";

// biome-ignore lint/suspicious/noExplicitAny: arguments as the schema parsed them, merged with node values
export type Args = Record<string, any>;
type Kind = "string" | "number" | "boolean" | "list";

/** One of Flowise's operations: its option name, the tool the model sees, and what it does. */
export interface NodeAction {
  option: string;
  tool: string;
  description: string;
  schema: z.ZodObject<z.ZodRawShape>;
  /** Node inputs fixing an argument: argument → input name, or [input name, kind] (default string). */
  fixed?: Record<string, string | readonly [string, Kind]>;
  /** Flowise's prefix of a failure: "Error listing drafts". */
  failure: string;
  run(args: Args, api: OAuth2Api): Promise<unknown>;
}

/** A node: its service, credential, Type input and the multiOptions input of each type. */
export interface NodeSpec {
  service: string;
  credentialName: string;
  typeInput: string;
  types: Record<string, { input: string; actions: NodeAction[] }>;
  baseVar: "GMAIL_BASE_URL" | "GOOGLE_CALENDAR_BASE_URL";
  host: string;
}

const BOOL: Record<string, boolean> = { true: true, false: false };

/** A node input as the argument's kind; undefined when unset (Flowise skips empty values, not false). */
function inputValue(raw: unknown, kind: Kind): unknown {
  if (raw === undefined || raw === null || raw === "") return undefined;
  if (kind === "boolean") return typeof raw === "boolean" ? raw : BOOL[String(raw).trim().toLowerCase()];
  if (kind === "number") {
    const n = typeof raw === "number" ? raw : Number(String(raw).trim());
    return Number.isFinite(n) ? n : undefined;
  }
  const text = str(raw) ?? (typeof raw === "number" ? String(raw) : undefined);
  if (kind === "list")
    return text
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  return text;
}

/** The node's values for an operation's arguments. */
function fixedValues(action: NodeAction, inputs: Record<string, unknown>, label: string): Args {
  const out: Args = {};
  for (const [arg, spec] of Object.entries(action.fixed ?? {})) {
    const [input, kind] = typeof spec === "string" ? [spec, "string" as Kind] : spec;
    const value = inputValue(inputs[input], kind);
    if (value === undefined && inputs[input] !== undefined && inputs[input] !== "" && inputs[input] !== null)
      throw fail("INVALID_FLOW", `${label} ${input} must be a ${kind} (got ${JSON.stringify(inputs[input])})`);
    if (value !== undefined) out[arg] = value;
  }
  return out;
}

/** The operation as a tool over the API: node values over the model's, failures as Flowise's text. */
function toAction(action: NodeAction, fixed: Args): Action {
  const shape = action.schema.shape;
  const loosened = Object.fromEntries(Object.keys(fixed).flatMap((k) => (shape[k] ? [[k, (shape[k] as z.ZodType).optional()]] : [])));
  return {
    name: action.tool,
    description: action.description,
    schema: Object.keys(loosened).length ? action.schema.extend(loosened) : action.schema,
    run: async (args, api) => {
      try {
        return await action.run({ ...args, ...fixed }, api);
      } catch (err) {
        if (err instanceof ToolCallError) return `${action.failure}: ${err.message}`;
        throw err;
      }
    },
  };
}

/** The node's tools: the chosen operations of its Type, in Flowise's order. */
export function nodeTools(spec: NodeSpec, inputs: Record<string, unknown>, { ctx, label }: ToolDeps) {
  const type = str(inputs[spec.typeInput]);
  const family = type ? spec.types[type] : undefined;
  if (!family)
    throw fail(
      "INVALID_FLOW",
      `${label} needs its Type (${spec.typeInput}: one of ${Object.keys(spec.types).join(", ")}), got ${type ?? "none"}`,
    );
  const chosen = chosenActions(inputs[family.input]);
  const known = new Set(family.actions.map((a) => a.option));
  const unknown = chosen.filter((c) => !known.has(c));
  if (unknown.length)
    throw fail("INVALID_FLOW", `${label} ${family.input}: unknown ${unknown.join(", ")} (known: ${[...known].join(", ")})`);
  if (!chosen.length) throw fail("INVALID_FLOW", `${label} needs at least one operation in ${family.input}`);
  const credentialId = oauth2CredentialId(inputs, spec.credentialName, label);
  const actions = family.actions.filter((a) => chosen.includes(a.option)).map((a) => toAction(a, fixedValues(a, inputs, label)));
  const baseUrl = serviceUrl(ctx.runtime.providers[spec.baseVar], spec.host);
  // A var on a private address is refused when the flow is built (400), not at the model's first call.
  checkEndpoint(baseUrl, spec.baseVar, ctx.runtime.providers);
  const api: OAuth2Api = { ctx, credentialId, service: spec.service, baseUrl, field: spec.baseVar };
  return actionTools(
    actions,
    actions.map((a) => a.name),
    api,
  );
}

/** A path segment from an argument. */
export const seg = (value: unknown): string => encodeURIComponent(String(value ?? ""));

/** Shared argument schemas. */
export const idSchema = z.object({ id: z.string().describe("ID of the resource") });
