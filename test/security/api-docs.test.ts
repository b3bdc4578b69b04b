// Issue 18, point 4: the API reference page (/api/v1/docs, Scalar) did not preselect bearer
// authentication, so "Test Request" went out without the key the reader entered. Now the document
// names its bearer scheme as the default requirement and the page's Scalar config preselects it.
import { describe, expect, it } from "vitest";
import { call, json } from "../helpers";

describe("the API reference page and its document", () => {
  it("the page's Scalar config preselects the document's bearer scheme", async () => {
    for (const path of ["/docs", "/docs/"]) {
      const html = await (await call("GET", path, { token: null })).text();
      const config = /Scalar\.createApiReference\("#reference", \{([\s\S]*?)\}\);/.exec(html)?.[1] ?? "";
      expect(config, path).toMatch(/authentication: \{ preferredSecurityScheme: "bearerAuth" \}/);
    }
  });

  it("openapi.json: bearerAuth in components.securitySchemes, the document's default requirement, and on every protected operation", async () => {
    const doc = await json("GET", "/openapi.json", { token: null });
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    const ops = Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[] }>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ at: `${method.toUpperCase()} ${path}`, security: op.security })),
    );
    // Every operation says who may call it: the bearer scheme, anonymous ({}), or either.
    for (const op of ops) expect(op.security, op.at).toBeDefined();
    expect(ops.find((o) => o.at === "POST /chatflows")?.security).toEqual([{ bearerAuth: [] }]);
    expect(ops.find((o) => o.at === "GET /ping")?.security).toEqual([{}]);
  });

  it("Try it works with a key: a protected operation answers 401 without the bearer header and 200 with it", async () => {
    expect((await call("GET", "/chatflows", { token: null })).status).toBe(401);
    expect((await call("GET", "/chatflows")).status).toBe(200);
  });
});
