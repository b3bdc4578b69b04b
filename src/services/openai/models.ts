// Flows as OpenAI models: the ones a caller may run (its key's chatflow scope, each flow's key
// binding), and a request's `model` — a flow id or its name slug — resolved to a flow id.
import { accessOf, flowInScope, isOwner } from "../callers/access";
import { chatFlow } from "../../db/schema";
import type { Db, Principal } from "../../env";
import { isUuid } from "../../lib/ids";
import { invalidValue, modelNotFound } from "./errors";

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

export async function listModels(db: Db, principal: Principal): Promise<OpenAIModel[]> {
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
export async function resolveModel(db: Db, principal: Principal, model: string): Promise<string> {
  if (isUuid(model)) return model.toLowerCase();
  const wanted = model.toLowerCase();
  const trimmed = (slug: string) => slug.replace(/^-+|-+$/g, "");
  const matches = (await runnableFlows(db, principal)).filter((f) => slugOf(f.name) === wanted || trimmed(slugOf(f.name)) === wanted);
  if (!matches.length) throw modelNotFound(model);
  if (matches.length > 1)
    throw invalidValue(
      "model",
      `The model name '${model}' matches ${matches.length} flows; use one of their ids: ${matches.map((f) => f.id).join(", ")}`,
    );
  return matches[0].id;
}
