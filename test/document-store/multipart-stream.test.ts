// The multipart/form-data reader behind streamed uploads (src/lib/multipart-stream.ts): parts come
// out whole whatever the pieces the body arrives in, file bytes untouched, and a malformed body is
// a 400 rather than a hang or a half-read file.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors";
import { boundaryOf, readParts } from "../../src/lib/multipart-stream";

const enc = new TextEncoder();

/** A stream of `bytes` in pieces of `size`. */
function streamOf(bytes: Uint8Array, size: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function parse(body: Uint8Array, boundary: string, size: number) {
  const parts: Array<{ name: string; filename?: string; type: string; data: Uint8Array }> = [];
  await readParts(streamOf(body, size), boundary, async (head, read) => {
    const pieces: Uint8Array[] = [];
    for (let p; (p = await read()); ) pieces.push(p.slice());
    const data = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
    let o = 0;
    for (const p of pieces) {
      data.set(p, o);
      o += p.length;
    }
    parts.push({ ...head, data });
  });
  return parts;
}

describe("readParts", () => {
  it("reads fields and files the same in pieces of any size, binary bytes and near-boundaries included", async () => {
    const file = new Uint8Array(70_000).map((_, i) => (i * 37) % 256);
    file.set(enc.encode("\r\n--XYZ not the boundary\r\n--"), 1000); // looks like a boundary, is not one
    const form = new FormData();
    form.append("loader", JSON.stringify({ name: "textFile" }));
    form.append("files", new File([file], 'odd "name".txt', { type: "text/plain" }));
    form.append("files", new File(["second"], "b.txt"));
    const req = new Request("http://x/", { method: "POST", body: form });
    const body = new Uint8Array(await req.arrayBuffer());
    const boundary = boundaryOf(req.headers.get("content-type")!);
    for (const size of [1, 7, 4096, body.length]) {
      const parts = await parse(body, boundary, size);
      expect(parts.map((p) => [p.name, p.filename])).toEqual([
        ["loader", undefined],
        ["files", 'odd "name".txt'],
        ["files", "b.txt"],
      ]);
      expect(new TextDecoder().decode(parts[0].data)).toBe('{"name":"textFile"}');
      expect(parts[1].type).toBe("text/plain");
      expect(parts[1].data).toEqual(file);
      expect(new TextDecoder().decode(parts[2].data)).toBe("second");
    }
  });

  it("skips a preamble and an epilogue; takes a quoted boundary", async () => {
    const body = enc.encode('preamble\r\n--b:1\r\nContent-Disposition: form-data; name="a"\r\n\r\none\r\n--b:1--\r\nepilogue');
    const parts = await parse(body, boundaryOf('multipart/form-data; boundary="b:1"'), 3);
    expect(parts.map((p) => [p.name, new TextDecoder().decode(p.data)])).toEqual([["a", "one"]]);
  });

  it("a body that ends inside a part, has no boundary or a part without a name is a 400", async () => {
    const cases = [
      '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nno end',
      "no boundary at all",
      "--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--",
      '--b\r\nContent-Disposition: form-data; filename="f"\r\n\r\nx\r\n--b--',
    ];
    for (const text of cases) {
      const err = await parse(enc.encode(text), "b", 5).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(400);
    }
    expect(() => boundaryOf("multipart/form-data")).toThrow(/no boundary/);
  });
});
