// Issue 9.4: clearing chat history deletes the chat uploads of the deleted messages, never the
// files sent to POST /vector/upsert (kept under the same <chatflowid>/ prefix), so the chatflow's
// next upsert still finds them.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TOWN_TEXT, flow, ref, standinModel } from "../engine/retrieval-flows";
import { call, json } from "../helpers";

/** textFile (its file kept in R2) → memoryVectorStore, answered by a retrieval chain at the stand-in. */
const storedFileFlow = () =>
  flow([
    ["loader_0", "textFile", "Document Loaders", { txtFile: 'FILE-STORAGE::["town.txt"]' }],
    ["emb_0", "localHashEmbeddings", "Embeddings"],
    ["vs_0", "memoryVectorStore", "Vector Stores", { document: [ref("loader_0")], embeddings: ref("emb_0") }, { output: "retriever" }],
    standinModel(),
    ["chain_0", "retrievalQAChain", "Chains", { model: ref("model_0"), vectorStoreRetriever: ref("vs_0") }],
  ] as never);

const keysUnder = async (prefix: string) => (await env.FILES.list({ prefix })).objects.map((o) => o.key).sort();
const note = (text: string) => `data:text/plain;base64,${btoa(text)}`;

describe("DELETE /chatmessage/{id} and vector-upsert files", () => {
  it("unfiltered: the chats' uploads go, the vector-upsert file stays and the next upsert works", async () => {
    const id = (await json("POST", "/chatflows", { body: { name: "kb", flowData: storedFileFlow() } })).id;
    const form = new FormData();
    form.append("files", new File([TOWN_TEXT], "town.txt", { type: "text/plain" }));
    expect((await call("POST", `/vector/upsert/${id}`, { raw: form })).status).toBe(200);

    for (const chatId of ["c1", "c2"]) {
      await json("POST", `/prediction/${id}`, {
        body: {
          question: "where is the bakery?",
          chatId,
          uploads: [{ type: "file", name: `${chatId}.txt`, mime: "text/plain", data: note(chatId) }],
        },
      });
    }
    expect(await keysUnder(`${id}/`)).toEqual([`${id}/c1/c1.txt`, `${id}/c2/c2.txt`, `${id}/town.txt`]);

    expect(await json("DELETE", `/chatmessage/${id}`)).toEqual({ deleted: 4 });
    expect(await keysUnder(`${id}/`)).toEqual([`${id}/town.txt`]);
    const again = await call("POST", `/vector/upsert/${id}`, { body: {} });
    expect(again.status, await again.clone().text()).toBe(200);
    expect((await again.json<any>()).numAdded + (await json("GET", `/upsert-history/${id}`)).length).toBeGreaterThan(0);
  });

  it("filtered by chat: only that chat's uploads go; an upload another kept message still names stays", async () => {
    const id = (await json("POST", "/chatflows", { body: { name: "kb", flowData: storedFileFlow() } })).id;
    const form = new FormData();
    form.append("files", new File([TOWN_TEXT], "town.txt", { type: "text/plain" }));
    await call("POST", `/vector/upsert/${id}`, { raw: form });
    const ask = (chatId: string, name: string, text: string) =>
      json("POST", `/prediction/${id}`, {
        body: { question: "where is the library?", chatId, uploads: [{ type: "file", name, mime: "text/plain", data: note(text) }] },
      });
    await ask("c1", "same.txt", "first");
    await ask("c1", "same.txt", "second"); // the same key, named by two messages of c1
    await ask("c2", "other.txt", "other");
    const first = (await json<any[]>("GET", `/chatmessage/${id}?chatId=c1`))[0];

    // Deleting the first turn only: same.txt is still named by the second turn, so it stays.
    expect(await json("DELETE", `/chatmessage/${id}?chatId=c1&endDate=${encodeURIComponent(first.createdDate)}`)).toEqual({ deleted: 1 });
    expect(await keysUnder(`${id}/`)).toEqual([`${id}/c1/same.txt`, `${id}/c2/other.txt`, `${id}/town.txt`]);
    expect(await json("DELETE", `/chatmessage/${id}?chatId=c1`)).toEqual({ deleted: 3 });
    expect(await keysUnder(`${id}/`)).toEqual([`${id}/c2/other.txt`, `${id}/town.txt`]);
  });
});
