// A chat model the page picked (the canvas's and the assistant page's "generate" buttons: a node name,
// its inputs and credential, as Flowise's UI sends `selectedChatModel`), asked once.
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { modelFailure } from "../engine/core/errors";
import type { Env } from "../env";
import { badGateway } from "../errors";
import { isObject } from "../lib/inputs";
import { contentText } from "../providers/chat/messages";
import { buildChatModel } from "../providers/chat/registry";
import type { Deps } from "./deps";

export interface SelectedChatModel {
  name: string;
  inputs?: Record<string, unknown>;
  credential?: string | null;
}

/** The model's answer, trimmed; a model that fails is a 502/504, an empty answer a 502 naming `what`. */
export async function askChosenModel(
  deps: Deps<"getCredential"> & { env: Env },
  selected: SelectedChatModel,
  prompt: { system: string; human: string; what: string },
  signal: AbortSignal,
): Promise<string> {
  const inputs = isObject(selected.inputs) ? { ...selected.inputs } : {};
  const credential = selected.credential || inputs.FLOWISE_CREDENTIAL_ID;
  if (typeof credential === "string" && credential) inputs.credential = credential;
  const model = await buildChatModel(selected.name, inputs, { env: deps.env, getCredential: deps.getCredential, signal });
  let reply;
  try {
    reply = await model.invoke([new SystemMessage(prompt.system), new HumanMessage(prompt.human)], { signal });
  } catch (err) {
    throw modelFailure(err, { signal });
  }
  const content = contentText(reply.content).trim();
  if (!content) throw badGateway(`${selected.name} answered no ${prompt.what}`);
  return content;
}
