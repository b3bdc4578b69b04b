// MongoDBAtlasChatMemory: the conversation kept in a MongoDB collection in Flowise's layout
// (src/providers/memory/mongodb.ts), over our own wire client (src/providers/mongodb). Inputs
// databaseName, collectionName, sessionId (default: the run's), memoryKey (chat_history);
// credential mongoDBUrlApi (mongoDBConnectUrl). Like the other external memories, the exchange is
// written after a successful run, and the request's history comes first, as Flowise prepends it.
import { mongoCollection } from "../../../providers/mongodb";
import { loadMongoHistory, saveMongoExchange } from "../../../providers/memory/mongodb";
import { credentialOf, str } from "../../core/inputs";
import { memoryInstance } from "../instances";
import type { NodeDefinition } from "../types";

export const mongoMemoryNodes: NodeDefinition[] = [
  {
    name: "MongoDBAtlasChatMemory",
    category: "Memory",
    async build({ node, inputs, ctx }) {
      const label = node.data.label || node.data.name;
      const collection = mongoCollection(await credentialOf(node, inputs, ctx), {
        label,
        databaseName: inputs.databaseName,
        collectionName: inputs.collectionName,
        env: ctx.runtime.providers,
        signal: ctx.signal,
      });
      const sessionId = str(inputs.sessionId) ?? ctx.sessionId;
      const read = async () => [...ctx.history, ...(await loadMongoHistory(collection, sessionId))];
      return memoryInstance(label, str(inputs.memoryKey) ?? "chat_history", read, (question, answer) =>
        saveMongoExchange(collection, sessionId, question, answer),
      );
    },
  },
];
