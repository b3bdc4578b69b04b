// Errors carry a code from one closed list (src/errors.ts) and answer the status of its code; the
// engine, providers, sandbox and lib name codes, never statuses; the answer's body stays API.md's.
import { describe, expect, it } from "vitest";
import { ApiError, ERROR_STATUS, type ErrorCode, codeOfStatus, fail, httpStatus } from "../../src/errors";
import conversationChain from "./fixtures/conversation-chain.json";
import { call, expectError } from "../helpers";
import { type Fixture, closedUrl, flowDataOf, makeCtx, pointAtStandin, runFlow } from "./helpers";

const codes = Object.keys(ERROR_STATUS) as ErrorCode[];

describe("the closed list", () => {
  it("every code answers an HTTP error status", () => {
    for (const code of codes) expect(httpStatus(code), code).toBeGreaterThanOrEqual(400);
    for (const code of codes) expect(httpStatus(code), code).toBeLessThan(600);
  });

  it("a bare status gets the generic code of that status and keeps the status", () => {
    for (const status of new Set(Object.values(ERROR_STATUS))) {
      const err = new ApiError(status, "m");
      expect(err.status).toBe(status);
      expect(ERROR_STATUS[err.code]).toBe(status);
    }
    expect(new ApiError(404, "gone").code).toBe("NOT_FOUND");
    expect(new ApiError(502, "down").code).toBe("UPSTREAM_FAILED");
    expect(new ApiError(499, "stopped").code).toBe("ABORTED");
    expect(codeOfStatus(418)).toBe("BAD_REQUEST");
    expect(codeOfStatus(503)).toBe("INTERNAL");
  });

  it("a code decides the status, which cannot be set", () => {
    const err = fail("MODEL_TIMEOUT", "slow");
    expect(err).toMatchObject({ code: "MODEL_TIMEOUT", status: 504, message: "slow" });
    expect(() => {
      (err as unknown as { status: number }).status = 200;
    }).toThrow(TypeError);
    expect(err.status).toBe(504);
  });
});

const sources = import.meta.glob<string>(["../../src/{engine,providers,sandbox,lib}/**/*.ts"], {
  query: "?raw",
  import: "default",
  eager: true,
});
/** The status-named helpers (src/errors.ts): a layer below the services names a code instead. */
const STATUS_HELPERS =
  /\b(badRequest|unauthorized|forbidden|notFound|conflict|payloadTooLarge|unsupportedMediaType|badGateway|gatewayTimeout|tooManyRequests)\b/;

describe("below the services, errors name codes", () => {
  it("the scan reads the sources", () => {
    expect(Object.keys(sources).length).toBeGreaterThan(200);
  });

  it("no `new ApiError(<status>` in src/engine, src/providers, src/sandbox, src/lib", () => {
    const offenders = Object.entries(sources)
      .filter(([, text]) => /new ApiError\(\s*\d/.test(text))
      .map(([path]) => path);
    expect(offenders).toEqual([]);
  });

  it("no status-named helper imported there (the loaders and lib/limits.ts were the last)", () => {
    const importsOf = (text: string) => [...text.matchAll(/import\s*\{([^}]*)\}\s*from\s*"(?:\.\.\/)+errors"/g)].map((m) => m[1]).join(",");
    const offenders = Object.entries(sources)
      .filter(([, text]) => STATUS_HELPERS.test(importsOf(text)))
      .map(([path]) => path);
    expect(offenders).toEqual([]);
  });
});

/** conversation-chain.json with `patch` applied. */
const conversation = (patch: Parameters<typeof flowDataOf>[1]) => flowDataOf(conversationChain as Fixture, patch);

describe("the engine's codes, from real runs", () => {
  it("a node edgeflow does not have: UNKNOWN_NODE, 400", async () => {
    const flow = conversation((n) => (n.get("bufferMemory_0")!.data.name = "noSuchMemory"));
    const err = await runFlow(flow, makeCtx("hi")).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: "UNKNOWN_NODE", status: 400 });
    expect(err.message).toBe("This chatflow uses nodes edgeflow does not support: noSuchMemory");
  });

  it("flowData that is not JSON: INVALID_FLOW, 400", async () => {
    const err = await runFlow("{nodes:", makeCtx("hi")).catch((e) => e);
    expect(err).toMatchObject({ code: "INVALID_FLOW", status: 400 });
    expect(err.message).toMatch(/^flowData is not valid JSON: /);
  });

  it("a model nobody answers for: MODEL_FAILED, 502", async () => {
    const flow = conversation((n) => pointAtStandin(n.get("chatOpenAI_0")!, undefined, `${closedUrl()}/v1`));
    const err = await runFlow(flow, makeCtx("hi")).catch((e) => e);
    expect(err).toMatchObject({ code: "MODEL_FAILED", status: 502 });
    expect(err.message).toMatch(/OpenAI-compatible endpoint request failed/);
  });
});

describe("the answer", () => {
  it("a code's status with API.md's body, no field added", async () => {
    const flowData = conversation((n) => (n.get("bufferMemory_0")!.data.name = "noSuchMemory"));
    const created = await call("POST", "/chatflows", { body: { name: "codes", flowData, type: "CHATFLOW" } });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };
    const body = await expectError(await call("POST", `/prediction/${id}`, { body: { question: "hi" } }), 400);
    expect(Object.keys(body).sort()).toEqual(["message", "stack", "statusCode", "success"]);
    expect(body).toEqual({
      statusCode: 400,
      success: false,
      message: "This chatflow uses nodes edgeflow does not support: noSuchMemory",
      stack: {},
    });
  });
});
