// Access rules of the MCP endpoints: who configures a flow's MCP server (/mcp-server/{id}), and
// which flows an API key's MCP server (POST /mcp) offers — those the key may run.
import type { Principal } from "../env";
import { accessOf, allowsAny, categoryOfFlowType, flowInScope, isOwner } from "../services/callers/access";
import { type Guard, guard, lacking, outOfScope, pathId } from "./guard";
import { findOwner } from "../services/owners";

const CONFIG = ["chatflows:config", "agentflows:config"];

/**
 * `chatflows:config` or `agentflows:config` as Flowise checks it, narrowed like the other record
 * guards: an agentflow (AGENTFLOW, MULTIAGENT) needs agentflows:config, any other flow
 * chatflows:config, and a key limited to chatflows reaches only those. A missing flow is the handler's 404.
 */
export function onFlowConfig(param: string): Guard {
  return guard(
    "chatflows:config or agentflows:config for the flow's kind (agentflows for AGENTFLOW/MULTIAGENT), within the key's chatflow limit",
    async (c, access) => {
      if (!allowsAny(access, CONFIG)) throw lacking(CONFIG);
      const id = pathId(c, param);
      if (!id) return;
      const owner = await findOwner(c.var.db, id);
      if (owner?.kind !== "chatflow") return;
      const names = [categoryOfFlowType(owner.type) === "agentflows" ? "agentflows:config" : "chatflows:config"];
      if (!allowsAny(access, names)) throw lacking(names);
      if (!flowInScope(access, id)) throw outOfScope();
    },
  );
}

/**
 * Whether POST /prediction would let this caller run the flow: a flow bound to an API key takes
 * that key (or the admin key) only, and a key limited to chatflows runs only those.
 */
export function mayRunOverMcp(principal: Principal, flow: { id: string; apikeyid: string | null }): boolean {
  if (flow.apikeyid && !isOwner(principal) && !(principal.kind === "apikey" && principal.keyId === flow.apikeyid)) return false;
  return flowInScope(accessOf(principal), flow.id);
}
