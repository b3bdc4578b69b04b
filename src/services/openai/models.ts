// Flows as OpenAI models: the ones a caller may run (its key's chatflow scope, each flow's key
// binding), and a request's `model` — a flow id or its name slug — resolved to a flow id.
import { accessOf, flowInScope, isOwner } from "../callers/access";
import { chatFlow } from "../../db/schema";
import type { Db, Principal } from "../../env";
import { isUuid } from "../../lib/ids";
import { invalidValue, modelNotFound } from "./errors";
import type { Deps } from "../deps";
import type { KeyFinder } from "../callers/principal";
import { type RunLookups, type SessionAsked, lookUpNamedRun } from "../runs";

export interface OpenAIModel {
  id: string;
  object: "model";
  created: number;
  owned_by: "edgeflow";
  /** The flow's name (Open WebUI shows it instead of the id). */
  name: string;
}

interface FlowListing {
  id: string;
  name: string;
  apikeyid: string | null;
  createdDate: string;
}

/** A name as a model: lower-cased, each run of characters other than a-z0-9 as one "-". */
export const slugOf = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]+/g, "-");

/**
 * The rule of POST /prediction for a caller with a bearer token: a bound flow takes only its key (or the admin
 * key); a limited key only its flows.
 */
function mayRun(principal: Principal, flow: FlowListing): boolean {
  if (flow.apikeyid && !isOwner(principal) && !(principal.kind === "apikey" && principal.keyId === flow.apikeyid)) return false;
  return flowInScope(accessOf(principal), flow.id);
}

async function runnableFlows(db: Db, principal: Principal): Promise<FlowListing[]> {
  const rows = await db
    .select({ id: chatFlow.id, name: chatFlow.name, apikeyid: chatFlow.apikeyid, createdDate: chatFlow.createdDate })
    .from(chatFlow)
    .orderBy(chatFlow.createdDate, chatFlow.id)
    .all();
  return rows.filter((f) => mayRun(principal, f));
}

export async function listModels({ db }: Deps<"db">, principal: Principal): Promise<OpenAIModel[]> {
  return (await runnableFlows(db, principal)).map((f) => ({
    id: f.id,
    object: "model",
    created: Math.floor(Date.parse(f.createdDate) / 1000) || 0,
    owned_by: "edgeflow",
    name: f.name,
  }));
}

/**
 * The flow id `model` names. An id is taken as it is (the run's own checks answer for it); a slug
 * must name exactly one flow the caller may run (404 none, 400 several). A slug also matches
 * without the leading or trailing "-" a name's punctuation gives it.
 */
export async function resolveModel({ db }: Deps<"db">, principal: Principal, model: string): Promise<string> {
  if (isUuid(model)) return model.toLowerCase();
  const wanted = model.toLowerCase();
  const matches = (await runnableFlows(db, principal)).filter((f) => slugNames(f.name, wanted));
  if (!matches.length) throw modelNotFound(model);
  if (matches.length > 1)
    throw invalidValue(
      "model",
      `The model name '${model}' matches ${matches.length} flows; use one of their ids: ${matches.map((f) => f.id).join(", ")}`,
    );
  return matches[0].id;
}

const SLUG = /^[a-z0-9-]+$/;

/**
 * A name slug's flow and its run's look-ups in one D1 batch (flow, variables, credentials, the
 * caller's key, the session's memory): the batch reads the flows whose name is like the slug (each
 * "-" any run of characters), and when exactly one is — the slug names it and the caller may run it
 * — the run goes on with that batch. Anything else (no such flow, several, one the caller may not
 * run, a failed batch) answers undefined: the caller resolves the slug as before (resolveModel),
 * which answers its 404 or 400.
 */
export async function lookUpModel(
  deps: Deps<"db" | "env">,
  model: string,
  token: string | undefined,
  session: SessionAsked | undefined,
  principalOf: (findKey: KeyFinder) => Promise<Principal | null>,
): Promise<{ id: string; lookups: RunLookups } | undefined> {
  const wanted = model.toLowerCase();
  if (!SLUG.test(wanted) || !/[a-z0-9]/.test(wanted)) return undefined;
  const { candidates, lookups } = lookUpNamedRun(deps, `%${wanted.replace(/-+/g, "%")}%`, token, session);
  const found = await candidates;
  const flow = found?.length === 1 ? found[0] : undefined;
  if (!flow || !slugNames(flow.name, wanted)) return undefined;
  const principal = await principalOf(lookups.findKey);
  if (!principal || !mayRun(principal, flow)) return undefined;
  return { id: flow.id, lookups };
}

/** Whether `slug` (lower-cased) names a flow called `name`: its slug, or that slug without a leading or trailing "-". */
const slugNames = (name: string, slug: string): boolean => slugOf(name) === slug || slugOf(name).replace(/^-+|-+$/g, "") === slug;
