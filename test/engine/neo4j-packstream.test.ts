// PackStream v1 (src/providers/graph/neo4j/packstream.ts): the markers Neo4j's drivers write, round
// trips of every size class, INT_64 beyond the safe range, and the temporal and spatial structures.
import { describe, expect, it } from "vitest";
import { Node, Path, Relationship, Structure, Unpacker, Writer, pack } from "../../src/providers/graph/neo4j/packstream";

const bytes = (v: unknown) => {
  const w = new Writer();
  pack(w, v);
  return Array.from(w.result());
};
const roundTrip = (v: unknown) => {
  const w = new Writer();
  pack(w, v);
  return new Unpacker(w.result()).unpack();
};
/** A value inside a RECORD message (so intsAsText applies), decoded. */
const inRecord = (raw: number[], intsAsText = false) =>
  (new Unpacker(new Uint8Array([0xb1, 0x71, 0x91, ...raw]), { intsAsText }).message().fields[0] as unknown[])[0];

describe("PackStream", () => {
  it("writes the markers of the specification", () => {
    expect(bytes(null)).toEqual([0xc0]);
    expect(bytes(true)).toEqual([0xc3]);
    expect(bytes(-16)).toEqual([0xf0]);
    expect(bytes(127)).toEqual([0x7f]);
    expect(bytes(-17)).toEqual([0xc8, 0xef]);
    expect(bytes(1000)).toEqual([0xc9, 0x03, 0xe8]);
    expect(bytes(70000)).toEqual([0xca, 0x00, 0x01, 0x11, 0x70]);
    expect(bytes(2 ** 40)).toEqual([0xcb, 0, 0, 0x01, 0, 0, 0, 0, 0]);
    expect(bytes(1.5)).toEqual([0xc1, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0]);
    expect(bytes("A")).toEqual([0x81, 0x41]);
    expect(bytes([1, 2])).toEqual([0x92, 1, 2]);
    expect(bytes({ a: 1 })).toEqual([0xa1, 0x81, 0x61, 1]);
    expect(bytes(new Structure(0x3f, [{ n: -1 }]))).toEqual([0xb1, 0x3f, 0xa1, 0x81, 0x6e, 0xff]);
  });

  it("round-trips every size class; INT_64 outside the safe range stays a bigint", () => {
    const long = "é".repeat(40_000); // 80 000 bytes: a 32-bit size
    const value = { s: long, list: Array.from({ length: 300 }, (_, i) => i * 1000), big: 2n ** 62n, neg: -(2 ** 35), f: -0.25, b: false };
    expect(roundTrip(value)).toEqual(value);
    expect(roundTrip(2n ** 40n)).toBe(2 ** 40);
  });

  it("decodes a RECORD's integers as text when asked; floats stay numbers", () => {
    expect(inRecord([0x2a], true)).toBe("42");
    expect(inRecord([0xc1, 0x40, 0x45, 0, 0, 0, 0, 0, 0], true)).toBe(42);
    expect(inRecord([0xcb, 0x00, 0x20, 0, 0, 0, 0, 0, 0x01], true)).toBe("9007199254740993");
  });

  it("graph structures become Node, Relationship and Path; temporal values ISO text", () => {
    const node = (id: number, name: string) => [0xb4, 0x4e, id, 0x91, 0x81, 0x50, 0xa1, 0x81, 0x6e, 0x81, name.charCodeAt(0), 0x81, 0x78];
    const n = inRecord(node(1, "a")) as Node;
    expect(n).toBeInstanceOf(Node);
    expect(n).toMatchObject({ labels: ["P"], properties: { n: "a" }, elementId: "x" });
    // Path: nodes [a, b], one unbound relationship KNOWS, indices [1, 1]
    const rel = [0xb4, 0x72, 7, 0x85, ...Array.from("KNOWS", (c) => c.charCodeAt(0)), 0xa0, 0x81, 0x72];
    const path = inRecord([0xb3, 0x50, 0x92, ...node(1, "a"), ...node(2, "b"), 0x91, ...rel, 0x92, 1, 1]) as Path;
    expect(path).toBeInstanceOf(Path);
    expect(path.segments).toHaveLength(1);
    expect(path.segments[0].relationship).toBeInstanceOf(Relationship);
    expect(path.segments[0].relationship.type).toBe("KNOWS");
    expect(path.segments[0].end.properties).toEqual({ n: "b" });
    // Date (days), LocalDateTime (s, ns), DateTime UTC + offset, Duration, Point2D
    expect(inRecord([0xb1, 0x44, 0xc9, 0x4a, 0x31], true)).toBe("2022-01-01");
    expect(inRecord([0xb2, 0x64, 0xca, 0x61, 0xcf, 0x99, 0x80, 0])).toBe("2022-01-01T00:00:00");
    expect(inRecord([0xb3, 0x49, 0xca, 0x61, 0xcf, 0x99, 0x80, 0xca, 0x1d, 0xcd, 0x65, 0, 0xc9, 0x0e, 0x10])).toBe(
      "2022-01-01T01:00:00.5+01:00",
    );
    expect(inRecord([0xb4, 0x45, 14, 3, 5, 0])).toBe("P14M3DT5S");
    expect(inRecord([0xb3, 0x58, 0xc9, 0x1e, 0x23, 0xc1, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xc1, 0x40, 0, 0, 0, 0, 0, 0, 0])).toEqual({
      srid: 7715,
      x: 1,
      y: 2,
    });
  });
});
