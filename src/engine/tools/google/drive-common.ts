// What Flowise's Google Drive, Sheets and Docs tools share: an OAuth2 credential read fresh for
// every call (engine/tools/oauth2/api.ts), the chosen operations as one structured tool each, and
// the node's own inputs as defaults that win over the model's arguments (Flowise's
// `{ ...args, ...defaultParams }`: a File ID set on the node is the one used, whatever the model says).
// The APIs' hosts: GOOGLE_DRIVE_BASE_URL, GOOGLE_SHEETS_BASE_URL, GOOGLE_DOCS_BASE_URL, else Google's.
import type { z } from "zod";
import { fail } from "../../../errors";
import { checkEndpoint } from "../../../lib/outbound";
import { bool, num, str } from "../../core/inputs";
import { type Action, type OAuth2Api, actionTools, oauth2CredentialId, serviceUrl } from "../oauth2/api";
import { ToolCallError } from "../service";
import type { BuiltTool, ToolDeps } from "../types";

/** A node input copied into the tools' arguments: [input name, argument name, how it is read]. */
export type DefaultParam = [input: string, param: string, kind: "str" | "num" | "bool"];

/** The node inputs that are set, as arguments (Flowise: strings and numbers when truthy, booleans when present). */
export function defaultsOf(inputs: Record<string, unknown>, table: DefaultParam[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [input, param, kind] of table) {
    const raw = inputs[input];
    if (kind === "bool") {
      if (raw !== undefined && raw !== null && raw !== "") out[param] = bool(raw);
    } else if (kind === "num") {
      const n = num(raw);
      if (n) out[param] = n;
    } else {
      const s = typeof raw === "number" ? String(raw) : str(raw);
      if (s) out[param] = s;
    }
  }
  return out;
}

export interface GoogleFilesSpec {
  /** How messages name the service ("Google Drive"). */
  service: string;
  credentialName: string;
  /** The var naming the API's host, and Google's host. */
  field: "GOOGLE_DRIVE_BASE_URL" | "GOOGLE_SHEETS_BASE_URL" | "GOOGLE_DOCS_BASE_URL";
  host: string;
  /** Each operation by its option name in the node ("listFiles"); the action's own name is the tool's ("list_files"). */
  actions: Record<string, FileAction>;
  /** The options the node chose (Flowise's type + multiOptions inputs); empty: a 400 unless `allWhenNone`. */
  chosen(inputs: Record<string, unknown>): string[];
  /** Flowise's Docs tool offers every operation when none is chosen. */
  allWhenNone?: boolean;
  defaults: DefaultParam[];
}

/** The API's way for one run: the credential, the host (var else Google's), the run context. */
export function googleApi(spec: Pick<GoogleFilesSpec, "service" | "field" | "host">, deps: ToolDeps, credentialId: string): OAuth2Api {
  const { ctx } = deps;
  return { ctx, credentialId, service: spec.service, field: spec.field, baseUrl: serviceUrl(ctx.runtime.providers[spec.field], spec.host) };
}

/** A tool node's build: the chosen operations as tools, the node's inputs over the model's arguments. */
export function googleFilesTool(spec: GoogleFilesSpec) {
  return async (inputs: Record<string, unknown>, deps: ToolDeps): Promise<BuiltTool> => {
    // A refused host (a var on a private address) is a 400 when the flow is built, not at the first call.
    checkEndpoint(serviceUrl(deps.ctx.runtime.providers[spec.field], spec.host), spec.field, deps.ctx.runtime.providers);
    const credentialId = oauth2CredentialId(inputs, spec.credentialName, deps.label);
    let chosen = spec.chosen(inputs);
    if (!chosen.length) {
      if (!spec.allWhenNone)
        throw fail("INVALID_FLOW", `${deps.label} has no operations chosen: pick a Type and at least one of its actions`);
      chosen = Object.keys(spec.actions);
    }
    const defaults = defaultsOf(inputs, spec.defaults);
    const actions = [...new Set(chosen)].map((option): Action => {
      const action = spec.actions[option];
      if (!action)
        throw fail("INVALID_FLOW", `${deps.label}: unknown operation ${option} (known: ${Object.keys(spec.actions).join(", ")})`);
      return withDefaults(action, defaults);
    });
    return actionTools(
      actions,
      actions.map((a) => a.name),
      googleApi(spec, deps, credentialId),
    );
  };
}

/** A comma list as ids (parents, ranges), blanks dropped. */
export const commaList = (value: unknown): string[] =>
  String(value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/** Path segments from arguments are encoded (ids, A1 ranges with `!` and spaces). */
export const seg = (value: unknown): string => encodeURIComponent(String(value ?? ""));

/** The arguments an operation runs with: the model's, the node's inputs over them (so of any type). */
export type Args = Record<string, unknown>;

/** An operation: the tool the model sees, Flowise's failure prefix ("Error listing files") and its run. */
export interface FileAction extends Action {
  failure: string;
}

/** One operation (its run takes the merged arguments). */
export const action = (
  name: string,
  description: string,
  failure: string,
  schema: z.ZodObject<z.ZodRawShape>,
  run: (args: Args, api: OAuth2Api) => Promise<unknown>,
): FileAction => ({ name, description, failure, schema, run: run as Action["run"] });

/**
 * The operation as the node gives it: the node's values over the model's arguments (and those
 * arguments optional for the model, as the node answers them), a failing call as Flowise's text.
 */
function withDefaults(action: FileAction, defaults: Args): Action {
  const shape = action.schema.shape;
  const loosened = Object.fromEntries(Object.keys(defaults).flatMap((k) => (shape[k] ? [[k, (shape[k] as z.ZodType).optional()]] : [])));
  return {
    name: action.name,
    description: action.description,
    schema: Object.keys(loosened).length ? action.schema.extend(loosened) : action.schema,
    run: async (args, api) => {
      try {
        return await action.run({ ...args, ...defaults }, api);
      } catch (err) {
        if (err instanceof ToolCallError) return `${action.failure}: ${err.message}`;
        throw err;
      }
    },
  };
}

/** Flowise adds a flag to the query only when it is true. */
export const flag = (value: unknown): "true" | undefined => (value === true || value === "true" ? "true" : undefined);

/** A text argument, or undefined when blank. */
export const text = (value: unknown): string | undefined => (typeof value === "number" ? String(value) : str(value));
