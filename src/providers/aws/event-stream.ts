// AWS's binary event-stream framing (application/vnd.amazon.eventstream), as Bedrock's
// ConverseStream answers: each message is a prelude (total length, headers length, CRC32 of the
// two), headers (name, type, value), a payload and a CRC32 of the whole message. A CRC that does
// not match is a broken stream, never skipped.
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE 802.3, as zlib), the checksum the framing uses. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export interface EventMessage {
  headers: Record<string, string | number | boolean>;
  payload: Uint8Array;
}

/** Fixed sizes of the header value types 0–9 (-1: length-prefixed; 0: none). */
const SIZES = [0, 0, 1, 2, 4, 8, -1, -1, 8, 16];

function headersOf(bytes: Uint8Array): EventMessage["headers"] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder();
  const out: EventMessage["headers"] = {};
  let at = 0;
  while (at < bytes.length) {
    const nameLength = bytes[at];
    const name = decoder.decode(bytes.subarray(at + 1, at + 1 + nameLength));
    at += 1 + nameLength;
    const type = bytes[at++];
    const size = SIZES[type];
    if (size === undefined) throw new Error(`unknown header type ${type}`);
    if (type === 0 || type === 1) out[name] = type === 0;
    else if (size === -1) {
      const length = view.getUint16(at);
      const value = bytes.subarray(at + 2, at + 2 + length);
      out[name] = type === 7 ? decoder.decode(value) : btoa(String.fromCharCode(...value));
      at += 2 + length;
    } else {
      out[name] =
        size === 1 ? view.getInt8(at) : size === 2 ? view.getInt16(at) : size === 4 ? view.getInt32(at) : Number(view.getBigInt64(at));
      at += size;
    }
  }
  return out;
}

/** The messages of a byte stream, each checked against its CRCs (a mismatch or a cut message throws). */
export async function* eventStreamMessages(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<EventMessage> {
  let buffer = new Uint8Array(0);
  for await (const chunk of chunks) {
    const joined = new Uint8Array(buffer.length + chunk.length);
    joined.set(buffer);
    joined.set(chunk, buffer.length);
    buffer = joined;
    while (buffer.length >= 12) {
      const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
      const total = view.getUint32(0);
      const headersLength = view.getUint32(4);
      if (crc32(buffer.subarray(0, 8)) !== view.getUint32(8)) throw new Error("event stream prelude CRC mismatch");
      if (total < 16 || headersLength > total - 16) throw new Error("event stream message lengths are inconsistent");
      if (buffer.length < total) break;
      if (crc32(buffer.subarray(0, total - 4)) !== view.getUint32(total - 4)) throw new Error("event stream message CRC mismatch");
      const headers = headersOf(buffer.subarray(12, 12 + headersLength));
      yield { headers, payload: buffer.slice(12 + headersLength, total - 4) };
      buffer = buffer.subarray(total);
    }
  }
  if (buffer.length) throw new Error("event stream ended inside a message");
}
