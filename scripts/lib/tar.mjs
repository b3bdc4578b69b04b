// A small reader of the tar archives npm publishes (ustar, with the pax and GNU long-name
// extensions npm may write): enough to take files out of a package tarball without a `tar` binary
// or a dependency. Entries are yielded in archive order; only regular files and directories matter.
import { posix } from "node:path";
import { gunzipSync } from "node:zlib";

const BLOCK = 512;
const decoder = new TextDecoder();

const text = (block, start, length) => {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return decoder.decode(end === -1 ? field : field.subarray(0, end));
};

const octal = (block, start, length) => {
  const value = text(block, start, length).trim();
  return value ? Number.parseInt(value, 8) : 0;
};

/** The `path` record of a pax extended header ("<len> path=<value>\n" records). */
function paxPath(body) {
  let rest = decoder.decode(body);
  while (rest.length) {
    const space = rest.indexOf(" ");
    const length = Number(rest.slice(0, space));
    if (!(length > 0)) break;
    const record = rest.slice(space + 1, length - 1);
    if (record.startsWith("path=")) return record.slice(5);
    rest = rest.slice(length);
  }
  return undefined;
}

/**
 * A path inside the archive, normalised; throws on one that would leave the folder it is
 * extracted into (absolute, or climbing with `..`).
 */
export function safeEntryPath(path) {
  const normal = posix.normalize(path.replace(/\\/g, "/"));
  if (normal.startsWith("/") || normal === ".." || normal.startsWith("../")) throw new Error(`tar: unsafe path in archive: ${path}`);
  return normal;
}

/** Yields {path, kind: "file" | "dir" | "other", body} for each entry of a .tgz (gzip-compressed tar). */
export function* tgzEntries(gzipped) {
  const archive = gunzipSync(gzipped);
  let offset = 0;
  let longName;
  while (offset + BLOCK <= archive.length) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break; // the end-of-archive blocks
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] || 0x30);
    const body = archive.subarray(offset + BLOCK, offset + BLOCK + size);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === "x" || type === "L") {
      longName = type === "x" ? paxPath(body) : text(body, 0, body.length); // names the next entry
      continue;
    }
    if (type === "g") continue; // global pax header: nothing we use
    const prefix = text(header, 345, 155);
    const name = text(header, 0, 100);
    const path = safeEntryPath(longName ?? (prefix ? `${prefix}/${name}` : name));
    longName = undefined;
    yield { path, kind: type === "0" ? "file" : type === "5" ? "dir" : "other", body };
  }
}
