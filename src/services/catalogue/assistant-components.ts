// What the custom assistant page picks from (GET /assistants/components/*): the catalogue's chat
// model and tool nodes, as full descriptors (the page shows their inputs), and the document stores
// an assistant can search (upserted ones), as Flowise's server answers them.
import { asc, eq } from "drizzle-orm";
import type { Deps } from "../deps";
import { documentStore } from "../../db/schema";
import { nodeList } from "./files";

type Descriptor = { category?: string } & Record<string, unknown>;

async function nodesOf(category: string): Promise<Descriptor[]> {
  const file = await nodeList(undefined);
  const nodes = file.body ? ((await new Response(file.body).json()) as Descriptor[]) : [];
  return nodes.filter((node) => node.category === category);
}

export const assistantChatModels = () => nodesOf("Chat Models");
export const assistantTools = () => nodesOf("Tools");

export async function assistantDocumentStores({ db }: Deps<"db">): Promise<Array<{ label: string; name: string; description: string }>> {
  const rows = await db
    .select({ id: documentStore.id, name: documentStore.name, description: documentStore.description })
    .from(documentStore)
    .where(eq(documentStore.status, "UPSERTED"))
    .orderBy(asc(documentStore.name))
    .all();
  return rows.map((s) => ({ label: s.name, name: s.id, description: s.description ?? "" }));
}
