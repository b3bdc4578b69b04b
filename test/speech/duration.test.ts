// How long a recording lasts (src/providers/speech/duration.ts), read from the containers browsers
// record (WebM without a Duration element, as MediaRecorder writes it; Ogg Opus; MP4) and from WAV
// and MP3 uploads — what MAX_AUDIO_SECONDS is checked against before any provider is paid.
import { describe, expect, it } from "vitest";
import { audioSeconds } from "../../src/providers/speech/duration";
import { wav } from "./helpers";

const bytes = (...parts: (number[] | Uint8Array | string)[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...new TextEncoder().encode(p)] : [...p])));
const be = (n: number, size: number) => Array.from({ length: size }, (_, i) => Math.floor(n / 256 ** (size - 1 - i)) % 256);
const le = (n: number, size: number) => be(n, size).reverse();

/** A WebM as MediaRecorder writes it: Segment and Clusters of unknown size, no Duration; blocks every 20 ms. */
function webm(seconds: number): Uint8Array {
  const unknown = [0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
  const parts: number[][] = [
    [0x1a, 0x45, 0xdf, 0xa3, 0x84, 0x42, 0x86, 0x81, 0x01],
    [0x18, 0x53, 0x80, 0x67, ...unknown],
  ];
  parts.push([0x15, 0x49, 0xa9, 0x66, 0x87, 0x2a, 0xd7, 0xb1, 0x83, ...be(1_000_000, 3)]); // Info: TimecodeScale 1 ms
  for (let cluster = 0; cluster * 10_000 < seconds * 1000; cluster++) {
    parts.push([0x1f, 0x43, 0xb6, 0x75, ...unknown, 0xe7, 0x84, ...be(cluster * 10_000, 4)]);
    for (let t = 0; t < 10_000 && cluster * 10_000 + t <= seconds * 1000; t += 20)
      parts.push([0xa3, 0x87, 0x81, ...be(t, 2), 0x80, 1, 2, 3]);
  }
  return bytes(...parts);
}

/** An Ogg Opus stream whose last page's granule position is `seconds` at 48 kHz. */
function oggOpus(seconds: number): Uint8Array {
  const page = (granule: number, body: number[] | string) =>
    bytes("OggS", [0, 0], le(granule, 8), le(1, 4), le(0, 4), le(0, 4), [1, 10], body);
  return bytes(page(0, "OpusHead\u0001\u0001"), page(24_000, [1, 2, 3]), page(seconds * 48_000, [4, 5, 6]));
}

/** An MP4 whose mvhd says `seconds` at a timescale of 1000. */
const mp4 = (seconds: number) =>
  bytes(
    le(0, 0),
    be(24, 4),
    "ftypM4A ",
    be(0, 4),
    "M4A ",
    be(108, 4),
    "moov",
    be(100, 4),
    "mvhd",
    [0, 0, 0, 0],
    be(0, 4),
    be(0, 4),
    be(1000, 4),
    be(seconds * 1000, 4),
    new Uint8Array(80),
  );

/** A constant-bit-rate MP3 (MPEG-1 layer III, 128 kbps) of `seconds`. */
const mp3 = (seconds: number) => bytes("ID3", [3, 0, 0, 0, 0, 0, 0], [0xff, 0xfb, 0x90, 0x00], new Uint8Array(16_000 * seconds - 4));

describe("audioSeconds", () => {
  it("reads each container's length", () => {
    expect(audioSeconds(wav("hi", 2.5))).toBeCloseTo(2.5, 3);
    expect(audioSeconds(webm(25))).toBeCloseTo(25, 1);
    expect(audioSeconds(oggOpus(7))).toBeCloseTo(7, 3);
    expect(audioSeconds(mp4(12))).toBeCloseTo(12, 3);
    expect(audioSeconds(mp3(3))).toBeCloseTo(3, 1);
  });

  it("a WebM's Duration element wins over its blocks", () => {
    const info = [0x15, 0x49, 0xa9, 0x66, 0x87, 0x44, 0x89, 0x84, ...new Uint8Array(new Float32Array([90_000]).buffer).reverse()];
    const file = bytes([0x1a, 0x45, 0xdf, 0xa3, 0x80], [0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], info);
    expect(audioSeconds(file)).toBeCloseTo(90, 3);
  });

  it("says nothing of what it cannot read", () => {
    expect(audioSeconds(bytes("not audio at all, just text"))).toBeUndefined();
    expect(audioSeconds(new Uint8Array(4))).toBeUndefined();
  });
});
