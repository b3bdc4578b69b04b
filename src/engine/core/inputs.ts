// Node inputs as Flowise stores them: the shared readers, and a node's credential.
import { str } from "../../lib/inputs";
import type { RunContext } from "./ports";
import type { FlowNode } from "./types";

export { asList, bool, isObject, jsonObject, nonBlank, num, str } from "../../lib/inputs";

/** The credential id a node names: data.credential, else its `credential` input. */
const credentialIdOf = (node: FlowNode, inputs: Record<string, unknown>): string | undefined =>
  str(node.data.credential) ?? str(inputs.credential) ?? str(inputs.FLOWISE_CREDENTIAL_ID);

/** The node's credential values ({} when it names none). */
export async function credentialOf(node: FlowNode, inputs: Record<string, unknown>, ctx: RunContext): Promise<Record<string, unknown>> {
  const id = credentialIdOf(node, inputs);
  return id ? ctx.getCredential(id) : {};
}

/** A provider's config from a node: its inputs, with the credential it names as `credential` (an id). */
export function providerConfig(node: FlowNode, inputs: Record<string, unknown>): Record<string, unknown> {
  const credential = credentialIdOf(node, inputs);
  return { ...inputs, ...(credential ? { credential } : {}) };
}
