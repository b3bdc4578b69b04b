import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import pkg from "../../package.json";
import { BASE, call, expectError, json } from "../helpers";

const worker = () => (exports as unknown as { default: Fetcher }).default;

describe("meta endpoints", () => {
  it("GET /ping answers the text pong without a token", async () => {
    const res = await call("GET", "/ping", { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await res.text()).toBe("pong");
    // A token does not hurt.
    expect(await (await call("GET", "/ping")).text()).toBe("pong");
  });

  it("GET /version answers the Flowise version of the pinned studio (the UI compares it) and edgeflow's, without a token", async () => {
    const res = await call("GET", "/version", { token: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ version: pkg.studio.version, edgeflow: pkg.version });
    expect(pkg.studio.version).toMatch(/^3\.\d+\.\d+$/);
  });

  it("GET /openapi.json is OpenAPI 3.1 with every resource and the bearerAuth scheme", async () => {
    const res = await call("GET", "/openapi.json", { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    const spec: any = await res.json();
    expect(spec.openapi).toMatch(/^3\.1\./);
    expect(spec.info.version).toBe(pkg.version);
    expect(spec.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
    const expected: Record<string, string[]> = {
      "/ping": ["get"],
      "/version": ["get"],
      "/tools": ["get", "post"],
      "/tools/{id}": ["get", "put", "delete"],
      "/chatflows": ["get", "post"],
      "/chatflows/{id}": ["get", "put", "delete"],
      "/chatflows/apikey/{apikey}": ["get"],
      "/assistants": ["get", "post"],
      "/assistants/{id}": ["get", "put", "delete"],
      "/apikey": ["get", "post"],
      "/apikey/{id}": ["get", "put", "delete"],
      "/leads": ["post"],
      "/leads/{chatflowid}": ["get"],
      "/chatmessage/{chatflowid}": ["get", "delete"],
      "/feedback": ["post"],
      "/feedback/{id}": ["get", "post", "put"],
      "/variables": ["get", "post"],
      "/variables/{id}": ["put", "delete"],
      "/credentials": ["get", "post"],
      "/credentials/{id}": ["get", "put", "delete"],
      "/upsert-history/{chatflowid}": ["get"],
      "/upsert-history": ["patch"],
    };
    for (const [path, methods] of Object.entries(expected)) {
      expect(spec.paths[path], path).toBeDefined();
      for (const m of methods) expect(spec.paths[path][m], `${m} ${path}`).toBeDefined();
    }
    // Protected operations declare bearerAuth; public ones allow anonymous calls.
    expect(spec.paths["/tools"].get.security).toEqual([{ bearerAuth: [] }]);
    expect(spec.paths["/credentials/{id}"].delete.security).toEqual([{ bearerAuth: [] }]);
    expect(spec.paths["/leads"].post.security).toContainEqual({});
    expect(spec.paths["/ping"].get.security ?? []).not.toContainEqual({ bearerAuth: [] });
    // Request schemas are there: the chatflow create names its required fields.
    const create = spec.paths["/chatflows"].post.requestBody.content["application/json"].schema;
    const schema = create.$ref ? spec.components.schemas[create.$ref.split("/").pop()] : create;
    expect(schema.required).toEqual(expect.arrayContaining(["name", "flowData"]));
    expect(spec.components.schemas.Error).toBeDefined();
  });

  it("GET /openapi.json: every operation has a unique operationId and declares its security; no path differs from another only by parameter names", async () => {
    const spec: any = await (await call("GET", "/openapi.json", { token: null })).json();
    const ids: string[] = [];
    const shapes = new Map<string, string>();
    for (const [path, item] of Object.entries<any>(spec.paths)) {
      const shape = path.replace(/\{[^}]+\}/g, "{}");
      expect(shapes.get(shape), `${path} vs ${shapes.get(shape)}`).toBeUndefined();
      shapes.set(shape, path);
      for (const [method, op] of Object.entries<any>(item)) {
        expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z0-9]+$/);
        ids.push(op.operationId);
        expect(Array.isArray(op.security) && op.security.length > 0, `${method} ${path} security`).toBe(true);
      }
    }
    expect(ids.length).toBeGreaterThan(55);
    expect(new Set(ids).size).toBe(ids.length);
    // Flowise's names where Flowise has the operation; anonymous access as the empty requirement.
    expect(spec.paths["/chatflows/{id}"].get.operationId).toBe("getChatflowById");
    expect(spec.paths["/prediction/{id}"].post.operationId).toBe("createPrediction");
    expect(spec.paths["/ping"].get.security).toEqual([{}]);
    expect(spec.paths["/feedback/{id}"].put.security).toEqual([{}, { bearerAuth: [] }]);
    // The renamed path segments still take the same URLs (the chunk and feedback suites call them).
    const params = (path: string, method: string) =>
      spec.paths[path][method].parameters.filter((p: any) => p.in === "path").map((p: any) => p.name);
    expect(params("/document-store/chunks/{storeId}/{loaderId}/{pageNoOrChunkId}", "get")).toEqual([
      "storeId",
      "loaderId",
      "pageNoOrChunkId",
    ]);
    expect(params("/feedback/{id}", "get")).toEqual(["id"]);
  });

  it("GET /docs answers an HTML page without a token", async () => {
    const res = await call("GET", "/docs", { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toMatch(/<html/i);
    expect(html).toContain("openapi.json");
  });

  it("GET /docs loads nothing from another host: Scalar's script is served here", async () => {
    for (const path of ["/docs", "/docs/"]) {
      const html = await (await call("GET", path, { token: null })).text();
      // Every script and document the page names is on this server, under the API base.
      expect(html, path).not.toMatch(/(src|href|url)\s*[=:]\s*["']?(https?:)?\/\//i);
      expect(html, path).toContain('src="/api/v1/docs/scalar.js"');
      expect(html, path).toContain('url: "/api/v1/openapi.json"');
      expect(html, path).toContain("withDefaultFonts: false");
      expect(html, path).not.toContain('id="api-reference"'); // Scalar would mount a default-configured copy there
    }
    const script = await call("GET", "/docs/scalar.js", { token: null });
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    const body = await script.text();
    expect(body.length).toBeGreaterThan(1_000_000); // the standalone build, not a stub
    expect(body).toContain("createApiReference");
  });
});

describe("unknown routes", () => {
  it("answer 404 with the JSON error body, with and without a token", async () => {
    for (const token of [undefined, null, "wrong-token-wrong-token"]) {
      const err = await expectError(await call("GET", "/no-such-thing", { token }), 404);
      expect(err.stack).toEqual({});
      expect(err.message).toContain("/no-such-thing");
    }
    await expectError(await call("POST", "/chatflows/x/y/z", { body: {} }), 404);
    await expectError(await call("PATCH", "/tools"), 404);
    const outside = await worker().fetch("http://edgeflow.test/not-api");
    await expectError(outside, 404);
    const root = await worker().fetch("http://edgeflow.test/");
    await expectError(root, 404);
  });
});

describe("routing details", () => {
  it("every path matches with a trailing slash", async () => {
    const tools = await call("GET", "/tools/");
    expect(tools.status).toBe(200);
    expect(Array.isArray(await tools.json())).toBe(true);
    expect(await (await call("GET", "/ping/", { token: null })).text()).toBe("pong");

    const flow = await json("POST", "/chatflows/", { body: { name: "slash", flowData: "{}", isPublic: true } });
    expect(flow.name).toBe("slash");
    expect((await json("GET", `/chatflows/${flow.id}/`)).id).toBe(flow.id);
    const lead = await json("POST", "/leads/", { token: null, body: { chatflowid: flow.id, name: "Widget", email: "w@example.com" } });
    expect(lead).toMatchObject({ chatflowid: flow.id, name: "Widget", email: "w@example.com" });
    expect((await json("GET", `/leads/${flow.id}/`)).map((l: any) => l.id)).toEqual([lead.id]);
  });

  it("every answer carries X-Request-Id, errors included", async () => {
    const answers = [
      await call("GET", "/ping", { token: null }),
      await call("GET", "/tools"),
      await call("GET", "/tools", { token: null }), // 401
      await call("GET", "/tools/not-a-uuid"), // 400
      await call("GET", "/nowhere"), // 404
      await call("POST", "/tools", { raw: "x", headers: { "content-type": "text/plain" } }), // 415
    ];
    const ids = answers.map((r) => r.headers.get("x-request-id"));
    for (const id of ids) expect(id).toMatch(/\S{8,}/);
    expect(new Set(ids).size).toBe(ids.length);
    // A client-sent id is kept.
    const mine = await call("GET", "/ping", { token: null, headers: { "X-Request-Id": "client-chosen-id-123" } });
    expect(mine.headers.get("x-request-id")).toBe("client-chosen-id-123");
  });

  it("CORS: widget paths answer any origin; other paths only the CORS_ORIGINS ones", async () => {
    const origin = "https://some-shop.example";
    for (const path of ["/prediction/0b6f2c1e-3a4d-4e5f-8a9b-0c1d2e3f4a5b", "/leads", "/leads/", "/feedback", "/ping"]) {
      const res = await worker().fetch(`${BASE}${path}`, {
        method: "OPTIONS",
        headers: {
          Origin: origin,
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "content-type,authorization",
        },
      });
      expect(res.status, path).toBeLessThan(300);
      expect(res.headers.get("access-control-allow-origin"), path).toBe(origin);
      const methods = res.headers.get("access-control-allow-methods") ?? "";
      for (const m of ["GET", "POST", "PUT", "OPTIONS"]) expect(methods, path).toContain(m);
      const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
      expect(allowed).toContain("content-type");
      expect(allowed).toContain("authorization");
    }
    // An actual widget answer, even an error, carries the header so the browser shows it.
    const refused = await call("POST", "/leads", {
      token: null,
      headers: { Origin: origin },
      body: { chatflowid: "0b6f2c1e-3a4d-4e5f-8a9b-0c1d2e3f4a5b" },
    });
    await expectError(refused.clone(), 404);
    expect(refused.headers.get("access-control-allow-origin")).toBe(origin);

    const preflight = await worker().fetch(`${BASE}/tools`, {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    const get = await call("GET", "/tools", { headers: { Origin: origin } });
    expect(get.status).toBe(200);
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("a body over 5 MB answers 413 JSON", async () => {
    const name = `big-${crypto.randomUUID()}`; // other test files share the storage
    const big = JSON.stringify({ name, description: "x".repeat(6 * 1024 * 1024) });
    const res = await call("POST", "/tools", { raw: big, headers: { "content-type": "application/json" } });
    const err = await expectError(res, 413);
    expect(err.stack).toEqual({});
    expect((await json("GET", "/tools")).map((t: any) => t.name)).not.toContain(name);
    // A bare 6 MB JSON string too, and on a public path without a token.
    await expectError(await call("POST", "/tools", { body: "y".repeat(6 * 1024 * 1024) }), 413);
    await expectError(await call("POST", "/leads", { token: null, body: { chatflowid: "x", name: "z".repeat(6 * 1024 * 1024) } }), 413);
  });

  it("a streamed body over 5 MB (no Content-Length) answers 413 too, and a lying Content-Length as well", async () => {
    const big = new TextEncoder().encode(JSON.stringify({ name: "streamed", description: "x".repeat(6 * 1024 * 1024) }));
    const body = new ReadableStream({
      start(controller) {
        for (let i = 0; i < big.length; i += 65536) controller.enqueue(big.slice(i, i + 65536));
        controller.close();
      },
    });
    const res = await worker().fetch(`${BASE}/tools`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", authorization: "Bearer test-admin-key" },
      // @ts-expect-error duplex is needed for a streamed request body
      duplex: "half",
    });
    await expectError(res, 413);
    await expectError(
      await call("POST", "/tools", { raw: '{"name":"x"}', headers: { "content-type": "application/json", "content-length": "99999999" } }),
      413,
    );
    expect((await json("GET", "/tools")).map((t: any) => t.name)).not.toContain("streamed");
  });

  it("takes JSON under any spelling of its content type", async () => {
    for (const ct of ["application/json; charset=utf-8", "APPLICATION/JSON", "application/vnd.api+json"]) {
      const res = await call("POST", "/tools", { raw: JSON.stringify({ name: `ct ${ct}` }), headers: { "content-type": ct } });
      expect(res.status, ct).toBe(200);
      expect((await res.json<any>()).name).toBe(`ct ${ct}`);
    }
  });

  it("error bodies carry stack {} outside development", async () => {
    for (const res of [
      await call("GET", "/tools/0b6f2c1e-3a4d-4e5f-8a9b-0c1d2e3f4a5b"),
      await call("GET", "/tools", { token: null }),
      await call("POST", "/tools", { body: {} }),
    ]) {
      const body = await expectError(res, res.status);
      expect(body.stack).toEqual({});
    }
  });
});
