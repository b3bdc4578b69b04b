// Document-store and chatflow routes on the postgres (pgvector) store, against a real Postgres with
// pgvector (test/standin/pgvector.mjs), the cases of remote-stores-2-routes.test.ts: a chatflow
// filling the table through POST /vector/upsert and a retrieval chain answering from it; a document
// store upserting, querying and deleting a loader's vectors; the wizard offering it; a private host
// → 400; a refused password → 502 without it.
import { describe, expect, inject, it } from "vitest";
import { marker } from "../engine/helpers";
import { BAKERY, LIBRARY, STATION } from "../engine/retrieval-flows";
import { newStore } from "./document-store-helpers";
import {
  ENERGY,
  SOLAR,
  TIDAL,
  WIND,
  askLibrarians,
  credentialOf,
  deleteVectors,
  offeredInputs,
  predictionError,
  queryWindTurbines,
  retrieverChatflow,
  saveChatflow,
  standinJson as get,
  storeUpsertConfig,
  townChatflow,
  upsertChatflow,
  upsertText,
} from "./hosted-store-routes";

const PASSWORD = "pgv-standin-password";
const where = (table: string) => ({ host: "127.0.0.1", port: inject("pgvectorPort"), database: "postgres", tableName: table });
const texts = async (table: string) =>
  ((await get(`${inject("pgvectorUrl")}/dump/${table}`)).rows as Array<{ pageContent: string }>).map((r) => r.pageContent).sort();
const pgCredential = (password = PASSWORD) => credentialOf("PostgresApi", { user: "flowise", password });

describe("a chatflow on postgres", () => {
  it("POST /vector/upsert fills the table; a conversational retrieval chain answers from the retrieved chunk", async () => {
    const table = `r_${marker()}`;
    const saved = await saveChatflow(
      "postgres",
      townChatflow("postgres_0", "postgres", { credential: await pgCredential(), ...where(table) }),
    );
    expect(saved.warning).toBeUndefined();
    expect(await upsertChatflow(saved.id)).toMatchObject({ numAdded: 3, numSkipped: 0 });
    expect(await texts(table)).toEqual([BAKERY, LIBRARY, STATION].sort());
    expect(await upsertChatflow(saved.id)).toMatchObject({ numAdded: 0, numSkipped: 3 });

    const { answer, prompt } = await askLibrarians(saved.id);
    expect(answer.sourceDocuments.map((d: any) => d.pageContent)).toEqual([LIBRARY]);
    expect(prompt).toContain(LIBRARY);
  });

  it("a private host is a 400; a refused password a 502 with Postgres's message, never the password", async () => {
    const priv = await saveChatflow(
      "postgres-private",
      retrieverChatflow("postgres_0", "postgres", { credential: await pgCredential(), ...where("x"), host: "10.1.2.3" }),
    );
    expect((await predictionError(priv.id, 400)).message).toMatch(
      /^postgres host refused by the outbound policy: 10\.1\.2\.3 is a private/,
    );
    const wrong = "wrong-password-123456";
    const refused = await saveChatflow(
      "postgres-refused",
      retrieverChatflow("postgres_0", "postgres", { credential: await pgCredential(wrong), ...where("x") }),
    );
    const e = await predictionError(refused.id, 502);
    expect(e.message).toMatch(/search failed: password authentication failed for user "flowise"/);
    expect(e.message).not.toContain(wrong);
  });
});

describe("a document store on postgres", () => {
  it("is offered by the wizard; upserts its chunks (with their docId), answers queries, deletes a loader's vectors", async () => {
    expect(await offeredInputs("postgres")).toEqual(
      expect.arrayContaining(["host", "database", "port", "tableName", "distanceStrategy", "pgMetadataFilter", "topK"]),
    );
    const table = `ds_${marker()}`;
    const store = await newStore();
    const common = storeUpsertConfig({ name: "postgres", config: { ...where(table), credential: await pgCredential() } });
    const a = await upsertText(store.id, common, ENERGY, "a");
    expect(a).toMatchObject({ numAdded: 2 });
    const b = await upsertText(store.id, common, TIDAL, "b");
    expect(b).toMatchObject({ numAdded: 1 });
    expect(await texts(table)).toEqual([SOLAR, WIND, TIDAL].sort());

    const found = await queryWindTurbines(store.id);
    expect(found.docs).toEqual([expect.objectContaining({ pageContent: WIND, chunkNo: expect.any(Number) })]);

    const again = await upsertText(store.id, common, ENERGY, "a", { docId: a.docId, replaceExisting: true });
    expect(again).toMatchObject({ numAdded: 0, numSkipped: 2 });

    expect(await deleteVectors(store.id, a.docId)).toEqual({ deleted: 2 });
    expect(await texts(table)).toEqual([TIDAL]);
    expect(await deleteVectors(store.id)).toEqual({ deleted: 1 });
    expect(await texts(table)).toEqual([]);
  });
});
