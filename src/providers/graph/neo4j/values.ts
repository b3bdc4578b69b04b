// The values of Neo4j's graph types as they leave a Bolt RECORD: nodes, relationships and paths as
// small classes (LangChain's Neo4jGraph turns them into their properties), temporal values as the ISO
// text Neo4j's drivers print, points as {srid, x, y[, z]}.
export class Node {
  constructor(
    readonly labels: string[],
    readonly properties: Record<string, unknown>,
    readonly elementId?: string,
  ) {}
}

export class Relationship {
  constructor(
    readonly type: string,
    readonly properties: Record<string, unknown>,
    readonly elementId?: string,
  ) {}
}

/** A path as its segments: each a start node, the relationship, an end node (a one-node path has none). */
export class Path {
  constructor(
    readonly start: Node,
    readonly segments: Array<{ start: Node; relationship: Relationship; end: Node }>,
  ) {}
}

const pad = (n: number, width = 2) => String(Math.trunc(Math.abs(n))).padStart(width, "0");
const fraction = (nanos: number) => (nanos ? `.${String(nanos).padStart(9, "0").replace(/0+$/, "")}` : "");
const offset = (s: number) => (s === 0 ? "Z" : `${s < 0 ? "-" : "+"}${pad(Math.abs(s) / 3600)}:${pad((Math.abs(s) % 3600) / 60)}`);
/** Seconds since the epoch (as wall-clock time) and nanoseconds as yyyy-mm-ddThh:mm:ss[.f]. */
const localIso = (seconds: number, nanos: number) => new Date(seconds * 1000).toISOString().slice(0, 19) + fraction(nanos);
const timeOfDay = (nanos: number) => {
  const s = Math.floor(nanos / 1e9);
  return `${pad(s / 3600)}:${pad((s % 3600) / 60)}:${pad(s % 60)}${fraction(nanos % 1e9)}`;
};

/** A temporal or spatial value as Neo4j's drivers print it; other structures as {tag, fields}. */
export function plainValue(tag: number, f: number[] | unknown[]): unknown {
  const n = f as number[];
  switch (String.fromCharCode(tag)) {
    case "D":
      return new Date(n[0] * 86_400_000).toISOString().slice(0, 10);
    case "t":
      return timeOfDay(n[0]);
    case "T":
      return timeOfDay(n[0]) + offset(n[1]);
    case "d":
      return localIso(n[0], n[1]);
    case "I": // UTC seconds (Bolt 5)
      return localIso(n[0] + n[2], n[1]) + offset(n[2]);
    case "F": // local seconds (Bolt 4.4)
      return localIso(n[0], n[1]) + offset(n[2]);
    case "i":
      return `${localIso(n[0], n[1])}[${String(f[2])}]`;
    case "f":
      return `${localIso(n[0], n[1])}[${String(f[2])}]`;
    case "E":
      return `P${n[0]}M${n[1]}DT${n[2]}${fraction(n[3])}S`;
    case "X":
      return { srid: n[0], x: n[1], y: n[2] };
    case "Y":
      return { srid: n[0], x: n[1], y: n[2], z: n[3] };
    default:
      return { tag, fields: f };
  }
}
