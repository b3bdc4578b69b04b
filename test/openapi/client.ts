// Calls edgeflow through a client generated from its own OpenAPI document: the types in
// generated/schema.d.ts come from openapi-typescript (client.check.mjs writes them), and
// openapi-fetch makes the calls. This file is type-checked against them before it runs, so a path,
// parameter or body that the document and these calls disagree on fails the check.
import createClient from "openapi-fetch";
import type { paths } from "./generated/schema";

type Step = (name: string, fn: () => Promise<void>) => Promise<void>;

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

export async function runClientChecks(baseUrl: string, token: string, step: Step): Promise<void> {
  const api = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
  const flowData = JSON.stringify({ nodes: [], edges: [] });
  let chatflowId = "";

  await step("GET /ping answers pong (text/plain)", async () => {
    const { data, response } = await api.GET("/ping", { parseAs: "text" });
    assert(response.status === 200 && data === "pong", `got ${response.status} ${data}`);
  });

  await step("POST /chatflows then GET /chatflows/{id} answer the stored record", async () => {
    const created = await api.POST("/chatflows", { body: { name: "typed client", flowData, isPublic: false } });
    assert(created.response.status === 200 && created.data, `create: ${created.response.status} ${JSON.stringify(created.error)}`);
    chatflowId = created.data.id;
    const read = await api.GET("/chatflows/{id}", { params: { path: { id: chatflowId } } });
    assert(read.data?.name === "typed client" && read.data.flowData === flowData, `read: ${JSON.stringify(read.data ?? read.error)}`);
  });

  await step("GET /chatflows with paging answers {data, total}", async () => {
    const { data } = await api.GET("/chatflows", { params: { query: { page: "1", limit: "5" } } });
    assert(data && !Array.isArray(data) && data.data.some((f) => f.id === chatflowId) && data.total >= 1, `list: ${JSON.stringify(data)}`);
  });

  await step("PUT /chatflows/{id} updates; an unknown id is a typed 404 error body", async () => {
    const updated = await api.PUT("/chatflows/{id}", { params: { path: { id: chatflowId } }, body: { name: "typed client, renamed" } });
    assert(updated.data?.name === "typed client, renamed", `update: ${JSON.stringify(updated.data ?? updated.error)}`);
    const missing = await api.GET("/chatflows/{id}", { params: { path: { id: "0b6f2c1e-3a4d-4e5f-8a9b-0c1d2e3f4a5b" } } });
    assert(
      missing.response.status === 404 && missing.error?.statusCode === 404 && missing.error.success === false,
      `404: ${JSON.stringify(missing.error)}`,
    );
  });

  await step("GET /feedback/{id} (the renamed segment: a chatflow id) answers the chatflow's feedback", async () => {
    const { data, response } = await api.GET("/feedback/{id}", { params: { path: { id: chatflowId } } });
    assert(response.status === 200 && Array.isArray(data) && data.length === 0, `feedback: ${response.status} ${JSON.stringify(data)}`);
  });

  await step("a document store's chunk page through /document-store/chunks/{storeId}/{loaderId}/{pageNoOrChunkId}", async () => {
    const store = await api.POST("/document-store/store", { body: { name: "typed client store" } });
    assert(store.data, `store: ${JSON.stringify(store.error)}`);
    const upsert = await api.POST("/document-store/upsert/{id}", {
      params: { path: { id: store.data.id } },
      body: {
        loader: { name: "plainText", config: { text: "One paragraph.\n\nAnother paragraph." } },
        splitter: { name: "characterTextSplitter", config: { chunkSize: 20, chunkOverlap: 0, separator: "\n\n" } },
      },
    });
    assert(upsert.response.status === 200, `upsert: ${upsert.response.status} ${JSON.stringify(upsert.error)}`);
    const page = await api.GET("/document-store/chunks/{storeId}/{loaderId}/{pageNoOrChunkId}", {
      params: { path: { storeId: store.data.id, loaderId: "all", pageNoOrChunkId: "1" } },
    });
    assert(
      page.data?.count === 2 && page.data.chunks.map((c) => c.pageContent).join("|") === "One paragraph.|Another paragraph.",
      `page: ${JSON.stringify(page.data ?? page.error)}`,
    );
    await api.DELETE("/document-store/store/{id}", { params: { path: { id: store.data.id } } });
  });

  await step("DELETE /chatflows/{id} removes it", async () => {
    const { response } = await api.DELETE("/chatflows/{id}", { params: { path: { id: chatflowId } } });
    assert(response.status === 200, `delete: ${response.status}`);
    const gone = await api.GET("/chatflows/{id}", { params: { path: { id: chatflowId } } });
    assert(gone.response.status === 404, `after delete: ${gone.response.status}`);
  });
}
