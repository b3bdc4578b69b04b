// Files built to make a loader do unbounded work: a DOCX zip bomb and a DOCX of many entries.
import { Deflate, strToU8, zipSync } from "fflate";

const DOCX_TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>';

/**
 * A DOCX whose word/document.xml inflates to `mb` MB of one-word paragraphs: a zip bomb (deflate
 * compresses the repetition about 300:1 here). A quarter MB is deflated once and its compressed
 * bytes repeated — each copy byte-aligned by a sync flush and referring back only to the copy
 * before it — so building 300 MB costs well under a second. (The paragraphs stand without the
 * <w:document> wrapper: fflate's sync flush loses data after a short first push.) `declared` is
 * the size the archive claims; an attacker's archive lies.
 */
export function zipBombDocx(mb: number, declared?: number): Uint8Array {
  const paragraph = "<w:p><w:r><w:t>word</w:t></w:r></w:p>";
  const block = strToU8(paragraph.repeat(Math.ceil((256 * 1024) / paragraph.length)));
  const blocks = mb * 4;
  let out: Uint8Array[] = [];
  const deflate = new Deflate({ level: 6 }, (chunk) => out.push(chunk));
  const take = () => {
    const bytes = concat(out);
    out = [];
    return bytes;
  };
  deflate.push(block);
  deflate.flush(true);
  const first = take();
  deflate.push(block);
  deflate.flush(true);
  const again = take();
  deflate.push(new Uint8Array(0), true);
  const end = take();
  const data = concat([first, ...Array.from({ length: blocks - 1 }, () => again), end]);
  return rawZip([
    { name: "[Content_Types].xml", data: strToU8(DOCX_TYPES), method: 0, size: DOCX_TYPES.length },
    { name: "word/document.xml", data, method: 8, size: declared ?? block.length * blocks },
  ]);
}

/** A zip with many tiny entries (a DOCX's parts plus `count` padding files). */
export function manyEntriesDocx(count: number): Uint8Array {
  const files: Record<string, Uint8Array> = {
    "[Content_Types].xml": strToU8(DOCX_TYPES),
    "word/document.xml": strToU8('<w:document xmlns:w="x"><w:body><w:p><w:r><w:t>hello</w:t></w:r></w:p></w:body></w:document>'),
  };
  for (let i = 0; i < count; i++) files[`pad/${i}`] = new Uint8Array(0);
  return zipSync(files, { level: 0 });
}

const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, at), (at += p.length);
  return out;
};

/** A zip written field by field (CRC left 0: readers that matter here do not check it). */
function rawZip(entries: Array<{ name: string; data: Uint8Array; method: number; size: number }>): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  const le = (n: number, bytes: number) => Array.from({ length: bytes }, (_, i) => (n / 2 ** (8 * i)) & 0xff);
  for (const e of entries) {
    const name = strToU8(e.name);
    const local = new Uint8Array([
      ...le(0x04034b50, 4),
      ...le(20, 2),
      0,
      0,
      ...le(e.method, 2),
      0,
      0,
      0,
      0,
      ...le(0, 4),
      ...le(e.data.length, 4),
      ...le(e.size, 4),
      ...le(name.length, 2),
      0,
      0,
      ...name,
    ]);
    central.push(
      new Uint8Array([
        ...le(0x02014b50, 4),
        ...le(20, 2),
        ...le(20, 2),
        0,
        0,
        ...le(e.method, 2),
        0,
        0,
        0,
        0,
        ...le(0, 4),
        ...le(e.data.length, 4),
        ...le(e.size, 4),
        ...le(name.length, 2),
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        ...le(offset, 4),
        ...name,
      ]),
    );
    parts.push(local, e.data);
    offset += local.length + e.data.length;
  }
  const cd = concat(central);
  const end = new Uint8Array([
    ...le(0x06054b50, 4),
    0,
    0,
    0,
    0,
    ...le(entries.length, 2),
    ...le(entries.length, 2),
    ...le(cd.length, 4),
    ...le(offset, 4),
    0,
    0,
  ]);
  return concat([...parts, cd, end]);
}
