// Shared by the retrieval tests: a text about three places (one paragraph each, so a 1000-character
// splitter makes three chunks), small hand-written retrieval flows, and the fixture pointed at the stand-in.
import { env } from "cloudflare:workers";
import type { FlowNode } from "../../src/engine";
import retrievalQa from "./fixtures/conversational-retrieval-qa-chain.json";
import { type Fixture, flowDataOf, pointAtStandin, standinUrl } from "./helpers";

export const BAKERY =
  "The Sunrise Bakery on Mill Street opens its doors at seven o'clock every morning. The bakery sells sourdough loaves, " +
  "croissants and cinnamon buns baked before dawn. On weekday mornings the bakery queue reaches the corner, so regulars " +
  "come early. The bakery closes at two in the afternoon, or earlier when the bread runs out. Bakery owner Marta Lind " +
  "bakes rye bread on Thursdays and the morning croissants are still warm at opening time. Coffee is served with every pastry. " +
  "On Sundays the bakery opens later, at nine, and sells apple tarts and poppy seed rolls until the trays are empty.";
export const LIBRARY =
  "The Riverside Library lends novels, atlases and recordings to anyone holding a reader card. Its reading room is quiet " +
  "and the librarians run a poetry circle each month. Children borrow picture books from the ground floor, while the upper " +
  "floor keeps newspapers and periodicals going back a century. The library hosts chess evenings, language exchanges and " +
  "a repair café where volunteers mend lamps, radios and bicycles. Library cards are free for residents of the district. " +
  "Overdue novels cost ten cents a day, and the librarians will reserve any title from the regional catalogue on request.";
export const STATION =
  "The central railway station has twelve platforms and trains leave for the coast every half hour. Tickets are sold " +
  "at the machines in the hall and at the counter beside platform one. The station has a left-luggage office, a taxi rank " +
  "outside the north entrance and bicycle parking under the bridge. Night trains depart from platform nine, and the " +
  "departure boards list delays. Season tickets for commuters are sold at the travel centre next to the station clock. " +
  "Porters help travellers with heavy suitcases, and the waiting room beside platform four stays heated through the winter.";
export const TOWN_TEXT = [BAKERY, LIBRARY, STATION].join("\n\n");

export const textFile = (name = "town.txt", text = TOWN_TEXT) => ({ name, mime: "text/plain", bytes: new TextEncoder().encode(text) });

/** Flowise's conversational retrieval fixture as exported, its model and embeddings pointed at the stand-in. */
export function retrievalFixtureFlow(
  mistralCredential: string,
  openAICredential: string,
  patch?: (nodes: Map<string, FlowNode>) => void,
): string {
  return flowDataOf(retrievalQa as unknown as Fixture, (nodes) => {
    pointAtStandin(nodes.get("chatMistralAI_0")!, mistralCredential);
    const embeddings = nodes.get("openAIEmbeddings_0")!;
    embeddings.data.inputs = { ...embeddings.data.inputs, basepath: `${standinUrl()}/v1` };
    embeddings.data.credential = openAICredential;
    patch?.(nodes);
  });
}

type Spec = [id: string, name: string, category: string, inputs?: Record<string, unknown>, outputs?: Record<string, unknown>];

/** A flow from [id, name, category, inputs, outputs]; edges follow the {{id.data.instance}} references. */
export function flow(specs: Spec[]): string {
  const nodes = specs.map(([id, name, category, inputs, outputs]) => ({
    id,
    type: "customNode",
    data: { id, name, label: id, category, inputs: inputs ?? {}, outputs: outputs ?? {} },
  }));
  const edges = nodes.flatMap(
    (n) =>
      JSON.stringify(n.data.inputs)
        .match(/\{\{([^{}.]+)\.data\.instance\}\}/g)
        ?.map((ref) => ({ source: ref.slice(2, ref.indexOf(".")), target: n.id })) ?? [],
  );
  return JSON.stringify({ nodes, edges });
}

export const ref = (id: string) => `{{${id}.data.instance}}`;

/** A chat model node at the stand-in. */
export const standinModel = (id = "model_0", credential?: string): Spec => [
  id,
  "chatOpenAI",
  "Chat Models",
  { modelName: "m", basepath: `${standinUrl()}/v1`, ...(credential ? { credential } : {}) },
];

/** How many vectors the faiss index kept in R2 for a node without basePath holds (0 when it has none). */
export async function faissIndexSize(namespace: string): Promise<number> {
  const obj = await env.FILES.get(`vectorstores/faiss/ns/${namespace}`);
  if (!obj) return 0;
  const bytes = new Uint8Array(await obj.arrayBuffer());
  const length = new DataView(bytes.buffer).getUint32(0, true);
  return (JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length))) as { entries: unknown[] }).entries.length;
}
