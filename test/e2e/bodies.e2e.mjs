// Body limits over real HTTP (issue 28 item 6): the built worker served as `npm start` serves it,
// and Node's own clients sending bodies far over a route's limit — chunked (no Content-Length) with
// fetch and with node:http, and with a Content-Length. Each must read the 413 JSON naming the limit:
// a connection reset (ECONNRESET, EPIPE) while the client is still sending fails the check. The
// Workers test pool cannot show a reset (test/security/streamed-body-limits.test.ts covers what is
// stored). Ends with the `N passed, N failed` line; exit code 1 on any failure.
// E2E_PORT=<port> serves on that port instead of a free one.
import { request } from "node:http";
import { startEdgeflow } from "./servers.mjs";

const MB = 1024 * 1024;
const PIECE = Buffer.alloc(64 * 1024, "a");

const results = [];
async function step(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    results.push(true);
    console.log(`  ✓ ${name} (${Date.now() - t0} ms)`);
  } catch (err) {
    results.push(false);
    console.log(
      `  ✗ ${name}\n    ${String(err?.stack ?? err)
        .split("\n")
        .slice(0, 4)
        .join("\n    ")}`,
    );
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/** `head`, `size` bytes of filler, `tail`, as pieces. */
function* pieces(head, size, tail) {
  yield Buffer.from(head);
  for (let left = size; left > 0; left -= PIECE.length) yield PIECE.subarray(0, Math.min(left, PIECE.length));
  yield Buffer.from(tail);
}

/** fetch (undici) with a stream body: no Content-Length. */
async function viaFetch(url, headers, body) {
  const parts = pieces(...body);
  const stream = new ReadableStream({
    pull(c) {
      const next = parts.next();
      if (next.done) c.close();
      else c.enqueue(new Uint8Array(next.value));
    },
  });
  const res = await fetch(url, { method: "POST", headers, body: stream, duplex: "half" });
  return { status: res.status, text: await res.text() };
}

/** node:http, chunked (no Content-Length) or with `length`. */
function viaHttp(url, headers, body, length) {
  return new Promise((resolve, reject) => {
    const all = [...pieces(...body)];
    const size = all.reduce((n, p) => n + p.length, 0);
    const req = request(url, {
      method: "POST",
      headers: { ...headers, ...(length ? { "content-length": size } : { "transfer-encoding": "chunked" }) },
    });
    req.on("response", (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode, text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    let i = 0;
    const pump = () => {
      while (i < all.length) if (!req.write(all[i++])) return void req.once("drain", pump);
      req.end();
    };
    pump();
  });
}

const CLIENTS = [
  ["fetch, chunked", (url, headers, body) => viaFetch(url, headers, body)],
  ["node:http, chunked", (url, headers, body) => viaHttp(url, headers, body, false)],
  ["node:http, Content-Length", (url, headers, body) => viaHttp(url, headers, body, true)],
];

async function expect413(send, url, headers, body, message) {
  let answer;
  try {
    answer = await send(url, headers, body);
  } catch (err) {
    throw new Error(`no answer: ${err.cause?.code ?? err.code ?? err.message}`);
  }
  assert(answer.status === 413, `expected 413, got ${answer.status}: ${answer.text.slice(0, 200)}`);
  const error = JSON.parse(answer.text);
  assert(error.statusCode === 413 && error.success === false, `not the error body: ${answer.text.slice(0, 200)}`);
  assert(error.message === message, `message: ${error.message}`);
}

let edgeflow;
try {
  edgeflow = await startEdgeflow({ script: "scripts/start.mjs", port: process.env.E2E_PORT ? Number(process.env.E2E_PORT) : undefined });
} catch (err) {
  console.log(String(err.message ?? err));
  console.log("0 passed, 1 failed");
  process.exit(1);
}
const { url, adminKey } = edgeflow;
const auth = { authorization: `Bearer ${adminKey}` };
const api = async (method, path, body) => {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { ...auth, "content-type": "application/json" },
    body: body && JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};

try {
  const marker = `oversized-${crypto.randomUUID()}`;
  const json = { ...auth, "content-type": "application/json" };
  const flowBody = [`{"name":"${marker}","flowData":"{\\"nodes\\":[],\\"edges\\":[]}","category":"`, 30 * MB, '"}'];
  for (const [client, send] of CLIENTS) {
    await step(`a 30 MB JSON body, ${client}: the 413 naming MAX_BODY_MB, five times`, async () => {
      for (let i = 0; i < 5; i++)
        await expect413(send, `${url}/chatflows`, json, flowBody, "Request body is larger than the limit of 5 MB (MAX_BODY_MB)");
    });
  }
  await step("none of those bodies made a chatflow", async () => {
    const { body } = await api("GET", "/chatflows");
    assert(!body.some((f) => f.name === marker), "a chatflow was stored");
  });

  const store = (await api("POST", "/document-store/store", { name: "oversized uploads" })).body;
  const boundary = "----edgeflow-bodies";
  const form = [
    `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`,
    140 * MB,
    `\r\n--${boundary}--\r\n`,
  ];
  const formType = { ...auth, "content-type": `multipart/form-data; boundary=${boundary}` };
  for (const [client, send] of CLIENTS.slice(0, 2)) {
    await step(`a 140 MB upload streamed to R2, ${client}: the 413 naming the upload limit; no loader kept`, async () => {
      await expect413(
        send,
        `${url}/document-store/upsert/${store.id}`,
        formType,
        form,
        "File big.txt is larger than every upload limit: 128 MB for text and JSON Lines files (MAX_STREAMED_FILE_MB), " +
          "20 MB for other files (MAX_UPLOAD_MB)",
      );
      const { body } = await api("GET", `/document-store/store/${store.id}`);
      assert(JSON.parse(body.loaders).length === 0, `loaders: ${body.loaders}`);
    });
  }

  const flow = crypto.randomUUID();
  const exportFile = [`{"ChatFlow":[{"id":"${flow}","name":"moved","flowData":"{}"}],"Variable":[{"name":"pad","value":"`, 60 * MB, '"}]}'];
  for (const [client, send] of CLIENTS) {
    await step(`a 60 MB import, ${client}: the 413 naming MAX_IMPORT_MB; nothing imported`, async () => {
      await expect413(
        send,
        `${url}/export-import/import`,
        json,
        exportFile,
        "The import file is larger than the limit of 50 MB (MAX_IMPORT_MB)",
      );
      assert((await api("GET", `/chatflows/${flow}`)).status === 404, "the import's chatflow was stored");
    });
  }

  const hook = [`{"name":"`, 5 * MB, '"}'];
  const mcp = ['{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"question":"', 5 * MB, '"}}}'];
  for (const [client, send] of CLIENTS) {
    await step(`webhook and MCP bodies of 5 MB, ${client}: the 413 naming their 1 MB limit`, async () => {
      const id = crypto.randomUUID();
      await expect413(
        send,
        `${url}/webhook/${id}`,
        { "content-type": "application/json" },
        hook,
        "Request body is larger than the webhook limit of 1 MB",
      );
      await expect413(
        send,
        `${url}/mcp/${id}`,
        { ...json, accept: "application/json, text/event-stream" },
        mcp,
        "Request body is larger than the MCP limit of 1 MB",
      );
    });
  }
} finally {
  edgeflow.stop();
}

const passed = results.filter(Boolean).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exit(passed === results.length ? 0 : 1);
