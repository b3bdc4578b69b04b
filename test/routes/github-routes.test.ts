// The github loader in a document store (POST /document-store/upsert), reaching the GitHub
// stand-in through GITHUB_API_BASE_URL with the loader's githubApi credential.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { setVars } from "../security/helpers";
import { json } from "../helpers";
import { newStore, upsert } from "./document-store-helpers";

let restore: () => void;
beforeAll(() => {
  restore = setVars({ GITHUB_API_BASE_URL: inject("githubUrl") });
});
afterAll(() => restore());

describe("a document store loading a GitHub repository", () => {
  it("chunks the private repository's markdown files, with the token from the loader's credential", async () => {
    const cred = (
      await json("POST", "/credentials", {
        body: { name: "gh", credentialName: "githubApi", plainDataObj: { accessToken: "ghp-stand-in-token" } },
      })
    ).id;
    const store = await newStore();
    const up = await upsert(store.id, {
      loader: {
        name: "github",
        config: { repoLink: "https://github.com/acme/private", branch: "main", recursive: true, ignorePath: '["*.ts"]', credential: cred },
      },
      embedding: { name: "localHashEmbeddings" },
      vectorStore: { name: "localVectorStore" },
    });
    expect(up.numAdded).toBe(4);
    expect(up.addedDocs.map((d: { metadata: { source: string } }) => d.metadata.source).sort()).toEqual([
      "README.md",
      "docs/guide/faq.md",
      "docs/guide/usage.md",
      "docs/install.md",
    ]);
    const found = await json("POST", "/document-store/vectorstore/query", {
      body: { storeId: store.id, query: "how do I install acme with npm", inputs: { topK: 1 } },
    });
    expect(found.docs[0].metadata).toMatchObject({
      source: "docs/install.md",
      repository: "https://github.com/acme/private",
      branch: "main",
    });
    const loader = JSON.parse((await json("GET", `/document-store/store/${store.id}`)).loaders)[0];
    expect(loader).toMatchObject({ loaderId: "github", loaderName: "Github", status: "SYNC" });
  });
});
