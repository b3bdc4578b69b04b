// How long a recording lasts, read from its container without decoding it: WebM/Matroska (the
// Duration element, else the last block's time — a browser's MediaRecorder writes no Duration),
// Ogg (the last page's granule position), MP4/M4A (mvhd), WAV (data size / byte rate), MP3 (a
// Xing/Info frame count, else the first frame's bit rate). Undefined when the container is not
// one of these or says nothing; the size limit still bounds such a file.
/** Whether `b` holds the ASCII `text` at `at` (a container's signature). */
export const ascii = (b: Uint8Array, at: number, text: string) => [...text].every((ch, i) => b[at + i] === ch.charCodeAt(0));

function indexOf(b: Uint8Array, text: string, from = 0, to = b.length): number {
  for (let i = from; i <= Math.min(to, b.length) - text.length; i++) if (ascii(b, i, text)) return i;
  return -1;
}

const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

function wav(b: Uint8Array): number | undefined {
  const fmt = indexOf(b, "fmt ", 12, 4096);
  const data = indexOf(b, "data", 12, 1 << 16);
  if (fmt < 0 || data < 0) return undefined;
  const v = view(b);
  const byteRate = v.getUint32(fmt + 16, true);
  return byteRate ? v.getUint32(data + 4, true) / byteRate : undefined;
}

function ogg(b: Uint8Array): number | undefined {
  const opus = indexOf(b, "OpusHead", 0, 512) >= 0;
  const vorbis = indexOf(b, "\u0001vorbis", 0, 512);
  const rate = opus ? 48000 : vorbis >= 0 ? view(b).getUint32(vorbis + 12, true) : 0;
  if (!rate) return undefined;
  for (let i = b.length - 27; i >= 0; i--) {
    if (!ascii(b, i, "OggS")) continue;
    const granule = Number(view(b).getBigUint64(i + 6, true));
    if (granule > 0 && granule < Number.MAX_SAFE_INTEGER) return granule / rate;
  }
  return undefined;
}

function mp4(b: Uint8Array): number | undefined {
  const at = indexOf(b, "mvhd");
  if (at < 0 || at + 32 > b.length) return undefined;
  const v = view(b);
  const version = b[at + 4];
  const scale = version === 1 ? v.getUint32(at + 24) : v.getUint32(at + 16);
  const duration = version === 1 ? Number(v.getBigUint64(at + 28)) : v.getUint32(at + 20);
  return scale && duration && duration !== 0xffffffff ? duration / scale : undefined;
}

/** An EBML variable-length integer at `at`: its length and value (marker kept for ids; -1 for an unknown size). */
function vint(b: Uint8Array, at: number, keepMarker: boolean): { length: number; value: number } | undefined {
  const first = b[at];
  if (first === undefined || first === 0) return undefined;
  const length = Math.clz32(first) - 23;
  if (length > 8 || at + length > b.length) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + b[at + i];
    allOnes &&= b[at + i] === 0xff;
  }
  return { length, value: !keepMarker && allOnes ? -1 : value };
}

const SEGMENT = 0x18538067;
const CLUSTER = 0x1f43b675;
const INFO = 0x1549a966;
const BLOCK_GROUP = 0xa0;
const ENTER = new Set([SEGMENT, CLUSTER, INFO, BLOCK_GROUP]);

function webm(b: Uint8Array): number | undefined {
  let scale = 1_000_000; // ns per timecode unit
  let duration: number | undefined;
  let cluster = 0;
  let last = 0;
  let at = 0;
  while (at < b.length) {
    const id = vint(b, at, true);
    const size = id && vint(b, at + id.length, false);
    if (!id || !size) break;
    const start = at + id.length + size.length;
    if (ENTER.has(id.value)) {
      at = start;
      continue;
    }
    if (size.value < 0 || start + size.value > b.length) break;
    const v = view(b);
    if (id.value === 0x2ad7b1) scale = readUint(b, start, size.value);
    else if (id.value === 0x4489) duration = size.value === 4 ? v.getFloat32(start) : size.value === 8 ? v.getFloat64(start) : undefined;
    else if (id.value === 0xe7) cluster = readUint(b, start, size.value);
    else if (id.value === 0xa3 || id.value === 0xa1) {
      const track = vint(b, start, false);
      if (track && start + track.length + 2 <= b.length) last = Math.max(last, cluster + v.getInt16(start + track.length));
    }
    at = start + size.value;
  }
  const units = duration ?? (last || undefined);
  return units === undefined ? undefined : (units * scale) / 1e9;
}

function readUint(b: Uint8Array, at: number, length: number): number {
  let n = 0;
  for (let i = 0; i < length; i++) n = n * 256 + b[at + i];
  return n;
}

const MP3_RATES = [
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];

function mp3(b: Uint8Array): number | undefined {
  let at = 0;
  if (ascii(b, 0, "ID3")) at = 10 + ((b[6] << 21) | (b[7] << 14) | (b[8] << 7) | b[9]);
  while (at + 4 < b.length && !(b[at] === 0xff && (b[at + 1] & 0xe6) === 0xe2)) at++; // frame sync, layer III
  if (at + 4 >= b.length) return undefined;
  const mpeg1 = (b[at + 1] & 0x18) === 0x18;
  const kbps = MP3_RATES[mpeg1 ? 0 : 1][b[at + 2] >> 4];
  const rate = [44100, 48000, 32000][(b[at + 2] >> 2) & 3] / (mpeg1 ? 1 : (b[at + 1] & 0x18) === 0x10 ? 2 : 4);
  if (!kbps || !rate) return undefined;
  const xing = Math.max(indexOf(b, "Xing", at, at + 200), indexOf(b, "Info", at, at + 200));
  if (xing >= 0 && view(b).getUint32(xing + 4) & 1) return (view(b).getUint32(xing + 8) * (mpeg1 ? 1152 : 576)) / rate;
  return ((b.length - at) * 8) / (kbps * 1000);
}

/** Seconds of audio in `bytes` (by its signature, whatever the declared type), or undefined when unknown. */
export function audioSeconds(bytes: Uint8Array): number | undefined {
  if (bytes.length < 16) return undefined;
  if (ascii(bytes, 0, "RIFF") && ascii(bytes, 8, "WAVE")) return wav(bytes);
  if (ascii(bytes, 0, "OggS")) return ogg(bytes);
  if (ascii(bytes, 4, "ftyp")) return mp4(bytes);
  if (bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return webm(bytes);
  if (ascii(bytes, 0, "ID3") || (bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0)) return mp3(bytes);
  return undefined;
}
