// A chat's files: POST /attachments/{chatflowId}/{chatId} (files into the chat under the
// chatflow's full-file-upload rules, their text answered) and GET /get-upload-file (a stored file
// streamed, under the chatflow's run rule).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, expectError, json, uuid } from "../helpers";
import { keyWith } from "../security/keys";
import { setVars } from "../security/helpers";
import { signedIn } from "../studio/helpers";
import { DOCX_MIME, makeDocx, makePdf } from "../providers/docs";

const ALLOWED = "text/plain,text/csv,application/json,text/markdown,text/html";

async function flow(extra: Record<string, unknown> = {}, upload: Record<string, unknown> | null = {}): Promise<string> {
  const chatbotConfig = upload
    ? JSON.stringify({ fullFileUpload: { status: true, allowedUploadFileTypes: ALLOWED, ...upload } })
    : undefined;
  const body = { name: `files ${uuid()}`, flowData: '{"nodes":[],"edges":[]}', ...(chatbotConfig ? { chatbotConfig } : {}), ...extra };
  return (await json("POST", "/chatflows", { body })).id;
}

function form(files: [string, string, string | Uint8Array][], fields: Record<string, string> = {}): FormData {
  const data = new FormData();
  for (const [name, type, content] of files) data.append("files", new File([content], name, { type }));
  for (const [k, v] of Object.entries(fields)) data.append(k, v);
  return data;
}

const attach = (flowId: string, chatId: string, data: FormData, token?: string | null, headers: Record<string, string> = {}) =>
  call("POST", `/attachments/${flowId}/${chatId}`, { raw: data, token, headers });

const fileUrl = (flowId: string, chatId: string, fileName: string) =>
  `/get-upload-file?${new URLSearchParams({ chatflowId: flowId, chatId, fileName })}`;

describe("POST /attachments/{chatflowId}/{chatId}", () => {
  it("answers each file's text as the chat reads it, and stores the files for that chat", async () => {
    const id = await flow({ isPublic: true });
    const res = await attach(
      id,
      "chat-1",
      form([
        ["notes.txt", "text/plain", "Rain turns into electricity.\nSecond line."],
        ["data.csv", "text/csv", "name,score\nada,3\nbob,5\n"],
      ]),
      null,
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { name: string; mimeType: string; size: number; content: string }[];
    expect(body.map((f) => [f.name, f.mimeType, f.size])).toEqual([
      ["notes.txt", "text/plain", 41],
      ["data.csv", "text/csv", 23],
    ]);
    expect(body[0].content).toBe("Rain turns into electricity.\nSecond line.");
    expect(body[1].content).toContain("ada");
    expect(body[1].content).toContain("bob");
    // Under the keys prediction stores its uploads under: <chatflowid>/<chatId>/<name>.
    const stored = await env.FILES.get(`${id}/chat-1/notes.txt`);
    expect(await stored?.text()).toBe("Rain turns into electricity.\nSecond line.");
    expect(stored?.httpMetadata?.contentType).toBe("text/plain");
  });

  it("reads PDF and Word files with the document loaders", async () => {
    const id = await flow({}, { allowedUploadFileTypes: `application/pdf,${DOCX_MIME}` });
    const pdf = makePdf([["Page one about rain."], ["Page two about sun."]]);
    const res = await attach(
      id,
      "docs",
      form([
        ["report.pdf", "application/pdf", pdf],
        ["memo.docx", DOCX_MIME, makeDocx(["Memo line."])],
      ]),
    );
    const body = (await res.json()) as { name: string; content: string }[];
    expect(res.status).toBe(200);
    expect(body[0].content).toMatch(/Page one about rain\.[\s\S]*Page two about sun\./);
    expect(body[1].content).toContain("Memo line.");
    expect((await env.FILES.get(`${id}/docs/report.pdf`))?.size).toBe(pdf.byteLength);
  });

  it("base64=true answers the bytes as base64", async () => {
    const id = await flow({ isPublic: true });
    const body = await (await attach(id, "c", form([["a.md", "text/markdown", "# Hi"]], { base64: "true" }), null)).json();
    expect(body).toEqual([{ name: "a.md", mimeType: "text/markdown", size: 4, content: btoa("# Hi") }]);
  });

  it("follows the run rule: a private chatflow needs a bearer, a key-bound one its key", async () => {
    const id = await flow();
    await expectError(await attach(id, "c", form([["a.txt", "text/plain", "x"]]), null), 401);
    expect((await attach(id, "c", form([["a.txt", "text/plain", "x"]]))).status).toBe(200);
    const key = await keyWith([]);
    const other = await keyWith([]);
    await json("PUT", `/chatflows/${id}`, { body: { apikeyid: key.id } });
    await expectError(await attach(id, "c", form([["a.txt", "text/plain", "x"]]), other.apiKey), 401);
    expect((await attach(id, "c", form([["a.txt", "text/plain", "x"]]), key.apiKey)).status).toBe(200);
  });

  it("keeps the chatflow's allowed origins", async () => {
    const id = await flow({
      isPublic: true,
      chatbotConfig: JSON.stringify({
        allowedOrigins: ["https://shop.example"],
        fullFileUpload: { status: true, allowedUploadFileTypes: "text/plain" },
      }),
    });
    await expectError(await attach(id, "c", form([["a.txt", "text/plain", "x"]]), null, { origin: "https://evil.example" }), 403);
    expect((await attach(id, "c", form([["a.txt", "text/plain", "x"]]), null, { origin: "https://shop.example" })).status).toBe(200);
  });

  it("refuses what the rules do not allow, storing nothing", async () => {
    const off = await flow({}, null);
    expect((await expectError(await attach(off, "c", form([["a.txt", "text/plain", "x"]])), 400)).message).toContain("not enabled");
    const id = await flow();
    expect((await expectError(await attach(id, "c", form([["a.pdf", "application/pdf", "%PDF-1.4"]])), 415)).message).toContain(
      "not allowed",
    );
    // A type allowed, but not what the name says (MIME spoofing, CVE-2025-61687 in Flowise).
    expect((await expectError(await attach(id, "c", form([["run.js", "text/plain", "alert(1)"]])), 415)).message).toContain("extension");
    // One bad file among good ones: none is stored.
    await expectError(
      await attach(
        id,
        "mixed",
        form([
          ["ok.txt", "text/plain", "fine"],
          ["bad.exe", "text/plain", "MZ"],
        ]),
      ),
      415,
    );
    expect(await env.FILES.get(`${id}/mixed/ok.txt`)).toBeNull();
    expect((await expectError(await attach(id, "c", new FormData()), 400)).message).toContain("No files");
    await expectError(await call("POST", `/attachments/${id}/c`, { body: { files: [] } }), 415);
    await expectError(await attach(id, "a%2Fb", form([["a.txt", "text/plain", "x"]])), 400);
    await expectError(await attach(uuid(), "c", form([["a.txt", "text/plain", "x"]])), 404);
    await expectError(await attach("not-a-uuid", "c", form([["a.txt", "text/plain", "x"]])), 400);
  });

  it("counts attachments against the chatflow's rate limit, apart from its questions", async () => {
    const apiConfig = JSON.stringify({ rateLimit: { status: true, limitMax: 1, limitDuration: 60, limitMsg: "Slow down" } });
    const id = await flow({ isPublic: true, apiConfig });
    expect((await attach(id, "r", form([["a.txt", "text/plain", "x"]]), null)).status).toBe(200);
    expect((await expectError(await attach(id, "r", form([["b.txt", "text/plain", "y"]]), null), 429)).message).toBe("Slow down");
    expect(await env.FILES.get(`${id}/r/b.txt`)).toBeNull();
  });

  it("answers CORS for any page, as the chat widget needs (the handler decides who may)", async () => {
    const id = await flow({ isPublic: true });
    const preflight = await call("OPTIONS", `/attachments/${id}/c`, {
      token: null,
      headers: { origin: "https://shop.example", "access-control-request-method": "POST" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    const res = await attach(id, "c", form([["a.txt", "text/plain", "x"]]), null, { origin: "https://shop.example" });
    expect(res.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    await res.arrayBuffer();
    const file = await call("GET", fileUrl(id, "c", "a.txt"), { token: null, headers: { origin: "https://shop.example" } });
    expect(file.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(await file.text()).toBe("x");
  });

  it("holds each file to MAX_UPLOAD_MB (413)", async () => {
    const id = await flow();
    const restore = setVars({ MAX_UPLOAD_MB: "0.001" });
    try {
      const res = await attach(id, "big", form([["big.txt", "text/plain", "x".repeat(5000)]]));
      expect((await expectError(res, 413)).message).toMatch(/limit/);
      expect(await env.FILES.get(`${id}/big/big.txt`)).toBeNull();
    } finally {
      restore();
    }
  });
});

describe("GET /get-upload-file", () => {
  it("streams a chat's stored file with its type; images shown in place, others downloaded", async () => {
    const id = await flow({ isPublic: true });
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    await env.FILES.put(`${id}/chat-9/pic.png`, png, { httpMetadata: { contentType: "image/png" } });
    const res = await call("GET", fileUrl(id, "chat-9", "pic.png"), { token: null });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-disposition")).toMatch(/^inline; filename="pic.png"/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(png);

    await env.FILES.put(`${id}/chat-9/page.html`, "<script>alert(1)</script>", { httpMetadata: { contentType: "text/html" } });
    const html = await call("GET", fileUrl(id, "chat-9", "page.html"), { token: null });
    expect(html.headers.get("content-disposition")).toMatch(/^attachment;/);
    await html.arrayBuffer();
    const forced = await call("GET", `${fileUrl(id, "chat-9", "pic.png")}&download=true`, { token: null });
    expect(forced.headers.get("content-disposition")).toMatch(/^attachment;/);
    await forced.arrayBuffer();
  });

  it("serves what /attachments stored", async () => {
    const id = await flow();
    await attach(id, "s1", form([["facts.txt", "text/plain", "The sky is green here."]]));
    const res = await call("GET", fileUrl(id, "s1", "facts.txt"));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("The sky is green here.");
  });

  it("a private chatflow's files need its bearer, or the studio's session from its own pages", async () => {
    const id = await flow();
    await env.FILES.put(`${id}/c/secret.txt`, "secret");
    await expectError(await call("GET", fileUrl(id, "c", "secret.txt"), { token: null }), 401);
    const { cookie } = await signedIn();
    // An <img> of the studio's own page: the cookie and Sec-Fetch-Site: same-origin, no x-request-from.
    const own = await call("GET", fileUrl(id, "c", "secret.txt"), { token: null, headers: { cookie, "sec-fetch-site": "same-origin" } });
    expect(await own.text()).toBe("secret");
    // The same cookie sent by another site's page (a top-level navigation, an <img>) is not enough.
    const elsewhere = { cookie, "sec-fetch-site": "cross-site" };
    await expectError(await call("GET", fileUrl(id, "c", "secret.txt"), { token: null, headers: elsewhere }), 401);
    const limited = await keyWith(["chatflows:view"], [await flow()]);
    await expectError(await call("GET", fileUrl(id, "c", "secret.txt"), { token: limited.apiKey }), 403);
  });

  it("never leaves the chat's folder, and answers 404 for a missing file", async () => {
    const id = await flow({ isPublic: true });
    await env.FILES.put(`${id}/other/x.txt`, "other chat");
    await env.FILES.put(`${id}/upserted.txt`, "the chatflow's upsert file");
    for (const [chatId, fileName] of [
      ["c", "../other/x.txt"],
      ["c/../other", "x.txt"],
      ["other/..", "upserted.txt"],
      ["c", ".."],
      ["..", "upserted.txt"],
      ["c", "a\\b"],
    ])
      await expectError(await call("GET", fileUrl(id, chatId, fileName), { token: null }), 400);
    expect((await expectError(await call("GET", fileUrl(id, "c", "nothing.txt"), { token: null }), 404)).message).toContain("nothing.txt");
    await expectError(await call("GET", `/get-upload-file?chatflowId=${id}&chatId=c`, { token: null }), 400);
    await expectError(await call("GET", fileUrl(uuid(), "c", "x.txt"), { token: null }), 404);
  });
});
