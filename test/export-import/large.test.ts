// Issue 25: a 50 MB export imports within the platform's limits — the body is read as a stream (never
// whole), staged in D1 parts under 2 MB, moved into place by one batch; past MAX_IMPORT_MB: 413.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN_KEY, BASE, expectError } from "../helpers";
import { count, stagedRows } from "./helpers";

const encoder = new TextEncoder();
const MB = 1024 * 1024;

/** A body generated as it is read (the test holds no 50 MB string either). */
function streamOf(parts: () => Generator<string>): ReadableStream<Uint8Array> {
  const source = parts();
  return new ReadableStream({
    pull(controller) {
      const next = source.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
  });
}

const post = (body: ReadableStream<Uint8Array>) =>
  (exports as unknown as { default: Fetcher }).default.fetch(
    new Request(`${BASE}/export-import/import`, {
      method: "POST",
      body,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      duplex: "half",
    } as RequestInit),
  );

describe("a 50 MB export", () => {
  it("imports a store with 25,000 chunks (50 MB) in one all-or-nothing import", { timeout: 120_000 }, async () => {
    const storeId = crypto.randomUUID();
    const loaderId = crypto.randomUUID();
    const CHUNKS = 25_000;
    const text = "Moving in from Flowise, one chunk at a time. ".repeat(44).slice(0, 1850); // ~2 KB a chunk as JSON: 50.6 MB (decimal) in all, under the 50 MiB limit
    const loaders = JSON.stringify([
      {
        id: loaderId,
        loaderId: "plainText",
        loaderName: "Plain Text",
        loaderConfig: { text: "large" },
        splitterId: "recursiveCharacterTextSplitter",
        totalChunks: CHUNKS,
        totalChars: CHUNKS * text.length,
        status: "SYNC",
        files: [],
      },
    ]);
    let bytes = 0;
    const body = streamOf(function* () {
      const head = `{"FileDefaultName":"ExportData.json","ChatFlow":[],"DocumentStore":[${JSON.stringify({ id: storeId, name: "large", loaders, whereUsed: "[]", status: "SYNC", createdDate: "2026-01-01T00:00:00.000Z", updatedDate: "2026-01-01T00:00:00.000Z" })}],"DocumentStoreFileChunk":[`;
      bytes += head.length;
      yield head;
      let batch: string[] = [];
      for (let i = 0; i < CHUNKS; i++) {
        batch.push(
          JSON.stringify({
            id: crypto.randomUUID(),
            docId: loaderId,
            storeId,
            chunkNo: i + 1,
            pageContent: `${i} ${text}`,
            metadata: `{"n":${i}}`,
          }),
        );
        if (batch.length === 200) {
          const part = (i + 1 > 200 ? "," : "") + batch.join(",");
          bytes += part.length;
          yield part;
          batch = [];
        }
      }
      yield "]}";
    });
    const started = Date.now();
    const res = await post(body);
    const elapsed = Date.now() - started;
    const answer = await res.json<any>();
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(bytes).toBeGreaterThan(50 * 1000 * 1000);
    expect(answer.imported).toMatchObject({ documentStores: 1, chunks: CHUNKS });
    expect(await count("SELECT COUNT(*) AS n FROM document_store_file_chunk WHERE storeId = ?", storeId)).toBe(CHUNKS);
    expect(
      await count(
        "SELECT COUNT(*) AS n FROM document_store_file_chunk WHERE storeId = ? AND chunkNo = ? AND pageContent LIKE ?",
        storeId,
        12345,
        "12344 Moving in%",
      ),
    ).toBe(1);
    expect(await stagedRows()).toBe(0);
    console.log(`import of ${(bytes / MB).toFixed(1)} MiB (${CHUNKS} chunks): ${elapsed} ms`);
  });

  it("a file over MAX_IMPORT_MB (default 50 MB) is a 413 and imports nothing", { timeout: 60_000 }, async () => {
    const storeId = crypto.randomUUID();
    const spaces = " ".repeat(MB);
    const body = streamOf(function* () {
      yield `{"DocumentStore":[${JSON.stringify({ id: storeId, name: "too large" })}],`;
      for (let i = 0; i < 51; i++) yield spaces;
      yield '"Tool":[]}';
    });
    const err = await expectError(await post(body), 413);
    expect(err.message).toContain("MAX_IMPORT_MB");
    expect(await count("SELECT COUNT(*) AS n FROM document_store WHERE id = ?", storeId)).toBe(0);
    expect(await stagedRows()).toBe(0);
  });
});
