// What an import's records say about each other, noted while the file streams by (ids only, never
// the records), then checked in one go: ids that appear twice, and references — a message's flow,
// an execution's agentflow, a feedback's message, a chunk's store and loader — that name neither a
// record of the file nor one already stored. The first fault found is a 400 naming its record.
import type { ChatflowType } from "../../db/enums";
import type { Db } from "../../env";
import { badRequest } from "../../errors";
import type { EndpointEnv } from "../../lib/outbound";
import { flowDataWarning } from "../chatflows";
import { endpointRefusals } from "../flow-endpoints";
import { storedIds } from "./stage";

type Kind = "flow" | "assistant" | "tool" | "variable" | "store" | "loader" | "chunk" | "execution" | "message" | "feedback" | "template";
type RefKind = "flowOrAssistant" | "agentflow";

const KIND_NAMES: Record<Kind, string> = {
  flow: "chatflow",
  assistant: "assistant",
  tool: "tool",
  variable: "variable",
  store: "document store",
  loader: "document loader",
  chunk: "chunk",
  execution: "execution",
  message: "chat message",
  feedback: "feedback",
  template: "custom template",
};

export interface ImportWarning {
  id: string;
  name: string;
  warning: string;
}

export class Ledger {
  private readonly ids = new Map<Kind, Set<string>>();
  private readonly refs = new Map<RefKind, Map<string, string>>();
  private readonly loaderStore = new Map<string, string>();
  private readonly chunkLoaders = new Map<string, string>(); // "storeId docId" → first chunk's label
  private readonly messageFlow = new Map<string, string>();
  private readonly feedback = new Map<string, { chatflowid: string; label: string }>();
  private readonly variableNames = new Map<string, string>();
  private readonly keyIds = new Map<string, { id: string; name: string }[]>();
  readonly warnings: ImportWarning[] = [];

  constructor(private readonly outbound: EndpointEnv) {}

  /** A record's id; twice in one kind is a fault of the file. */
  note(kind: Kind, id: string, label: string): void {
    let set = this.ids.get(kind);
    if (!set) this.ids.set(kind, (set = new Set()));
    if (set.has(id)) throw badRequest(`${label}: the file has another ${KIND_NAMES[kind]} with id ${id}`);
    set.add(id);
  }

  has(kind: Kind, id: string): boolean {
    return this.ids.get(kind)?.has(id) ?? false;
  }

  count(kind: Kind): number {
    return this.ids.get(kind)?.size ?? 0;
  }

  refer(kind: RefKind, id: string, label: string): void {
    let map = this.refs.get(kind);
    if (!map) this.refs.set(kind, (map = new Map()));
    if (!map.has(id)) map.set(id, label);
  }

  loaderOf(loaderId: string, storeId: string): void {
    this.loaderStore.set(loaderId, storeId);
  }

  chunkIn(storeId: string, docId: string, label: string): void {
    const key = `${storeId} ${docId}`;
    if (!this.chunkLoaders.has(key)) this.chunkLoaders.set(key, label);
  }

  messageOf(id: string, chatflowid: string): void {
    this.messageFlow.set(id, chatflowid);
  }

  /** One feedback per message (a unique rule here as in Flowise). */
  feedbackOn(messageId: string, chatflowid: string, label: string): void {
    const earlier = this.feedback.get(messageId);
    if (earlier)
      throw badRequest(`${label}: message ${messageId} already has feedback in the file (${earlier.label}); a message has at most one`);
    this.feedback.set(messageId, { chatflowid, label });
  }

  variableName(name: string, label: string): void {
    const earlier = this.variableNames.get(name);
    if (earlier) throw badRequest(`${label}: the file has another variable named "${name}" (${earlier}); names are unique`);
    this.variableNames.set(name, label);
  }

  /**
   * A flow as saved: what POST /chatflows would warn about it (`schedule`: why its schedule cannot
   * be enabled), and the API key it is bound to.
   */
  flowSaved(id: string, name: string, flowData: string, type: ChatflowType, apikeyid: string | null, schedule?: string): void {
    const said = [flowDataWarning(flowData, type), ...endpointRefusals(flowData, this.outbound), schedule].filter(Boolean);
    if (said.length) this.warnings.push({ id, name, warning: said.join("; ") });
    if (apikeyid) this.keyIds.set(apikeyid, [...(this.keyIds.get(apikeyid) ?? []), { id, name }]);
  }

  /** Every reference resolved in the file or the database; throws a 400 naming the first that is not. */
  async verify(db: Db): Promise<void> {
    const missing = async (kind: RefKind, inFile: (id: string) => boolean, sqlOf: string, what: string) => {
      const refs = this.refs.get(kind);
      if (!refs) return;
      const outside = [...refs.keys()].filter((id) => !inFile(id));
      if (!outside.length) return;
      const found = await storedIds({ db }, sqlOf, outside);
      const lost = outside.find((id) => !found.has(id));
      if (lost) throw badRequest(`${refs.get(lost)}: ${what} ${lost} is neither in the file nor stored here`);
    };
    await missing(
      "flowOrAssistant",
      (id) => this.has("flow", id) || this.has("assistant", id),
      "SELECT id FROM chat_flow WHERE id IN (SELECT value FROM json_each(?)) UNION SELECT id FROM assistant WHERE " +
        "id IN (SELECT value FROM json_each(?))",
      "chatflow",
    );
    await missing(
      "agentflow",
      (id) => this.has("flow", id),
      "SELECT id FROM chat_flow WHERE id IN (SELECT value FROM json_each(?))",
      "agentflow",
    );
    await this.verifyFeedback(db);
    await this.verifyChunks(db);
    await this.warnUnknownKeys(db);
  }

  private async verifyFeedback(db: Db): Promise<void> {
    const stored: string[] = [];
    for (const [messageId, f] of this.feedback) {
      const flow = this.messageFlow.get(messageId);
      if (flow === undefined) stored.push(messageId);
      else if (flow !== f.chatflowid)
        throw badRequest(`${f.label}: chatflowid ${f.chatflowid} is not the chatflow of message ${messageId} (${flow})`);
    }
    if (!stored.length) return;
    const flows = await storedIds(
      { db },
      "SELECT id || ' ' || chatflowid AS id FROM chat_message WHERE id IN (SELECT value FROM json_each(?))",
      stored,
    );
    const flowOf = new Map([...flows].map((pair) => pair.split(" ") as [string, string]));
    for (const messageId of stored) {
      const f = this.feedback.get(messageId)!;
      const flow = flowOf.get(messageId);
      if (!flow) throw badRequest(`${f.label}: message ${messageId} is neither in the file nor stored here`);
      if (flow !== f.chatflowid)
        throw badRequest(`${f.label}: chatflowid ${f.chatflowid} is not the chatflow of message ${messageId} (${flow})`);
    }
  }

  private async verifyChunks(db: Db): Promise<void> {
    const stored: Array<[string, string, string]> = [];
    for (const [key, label] of this.chunkLoaders) {
      const [storeId, docId] = key.split(" ");
      if (this.has("store", storeId)) {
        if (this.loaderStore.get(docId) !== storeId)
          throw badRequest(`${label}: docId ${docId} is not a loader of document store ${storeId} in the file`);
      } else stored.push([storeId, docId, label]);
    }
    if (!stored.length) return;
    const stores = await storedIds({ db }, "SELECT id FROM document_store WHERE id IN (SELECT value FROM json_each(?))", [
      ...new Set(stored.map(([s]) => s)),
    ]);
    const loaders = await storedIds(
      { db },
      "SELECT storeId || ' ' || id AS id FROM document_store_loader WHERE id IN (SELECT value FROM json_each(?))",
      [...new Set(stored.map(([, d]) => d))],
    );
    for (const [storeId, docId, label] of stored) {
      if (!stores.has(storeId)) throw badRequest(`${label}: document store ${storeId} is neither in the file nor stored here`);
      if (!loaders.has(`${storeId} ${docId}`)) throw badRequest(`${label}: docId ${docId} is not a loader of document store ${storeId}`);
    }
  }

  /** A flow bound to a Flowise API key that does not exist here runs only with the admin key until it is rebound. */
  private async warnUnknownKeys(db: Db): Promise<void> {
    if (!this.keyIds.size) return;
    const known = await storedIds({ db }, "SELECT id FROM apikey WHERE id IN (SELECT value FROM json_each(?))", [...this.keyIds.keys()]);
    for (const [keyId, flows] of this.keyIds) {
      if (known.has(keyId)) continue;
      for (const f of flows) {
        this.warnings.push({
          id: f.id,
          name: f.name,
          warning:
            `apikeyid ${keyId} is not an API key of this deployment: only the admin key runs this flow ` +
            `until you set apikeyid (PUT /chatflows/${f.id}) to a key made here, or to null`,
        });
      }
    }
  }
}
