// OTLP/HTTP's protobuf body (content-type application/x-protobuf, as @opentelemetry/exporter-trace-otlp-proto
// posts it): the ExportTraceServiceRequest otlp.ts builds as OTLP/JSON, encoded with opentelemetry-proto's
// field numbers (trace/v1/trace.proto, common/v1/common.proto). Ids are hex in JSON and bytes here, times
// fixed64, int values int64 varints. A small schema-driven writer: no protobuf library in the bundle.
type Scalar = "string" | "hex" | "varint" | "int64" | "fixed64" | "double" | "bool";
/** [JSON key, field number, type: a scalar or another message's name]; arrays are repeated fields. */
type Field = [string, number, Scalar | keyof typeof SCHEMA];

const SCHEMA = {
  Request: [["resourceSpans", 1, "ResourceSpans"]],
  ResourceSpans: [
    ["resource", 1, "Resource"],
    ["scopeSpans", 2, "ScopeSpans"],
  ],
  Resource: [["attributes", 1, "KeyValue"]],
  ScopeSpans: [
    ["scope", 1, "Scope"],
    ["spans", 2, "Span"],
  ],
  Scope: [
    ["name", 1, "string"],
    ["version", 2, "string"],
  ],
  Span: [
    ["traceId", 1, "hex"],
    ["spanId", 2, "hex"],
    ["parentSpanId", 4, "hex"],
    ["name", 5, "string"],
    ["kind", 6, "varint"],
    ["startTimeUnixNano", 7, "fixed64"],
    ["endTimeUnixNano", 8, "fixed64"],
    ["attributes", 9, "KeyValue"],
    ["events", 11, "Event"],
    ["status", 15, "Status"],
  ],
  Event: [
    ["timeUnixNano", 1, "fixed64"],
    ["name", 2, "string"],
    ["attributes", 3, "KeyValue"],
  ],
  Status: [
    ["message", 2, "string"],
    ["code", 3, "varint"],
  ],
  KeyValue: [
    ["key", 1, "string"],
    ["value", 2, "AnyValue"],
  ],
  AnyValue: [
    ["stringValue", 1, "string"],
    ["boolValue", 2, "bool"],
    ["intValue", 3, "int64"],
    ["doubleValue", 4, "double"],
    ["arrayValue", 5, "Values"],
    ["kvlistValue", 6, "KeyValues"],
  ],
  Values: [["values", 1, "AnyValue"]],
  KeyValues: [["values", 1, "KeyValue"]],
} satisfies Record<string, Array<[string, number, string]>>;

const utf8 = new TextEncoder();

function varint(out: number[], value: bigint): void {
  let v = BigInt.asUintN(64, value);
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}

function bytes(out: number[], tag: number, data: ArrayLike<number>): void {
  varint(out, BigInt((tag << 3) | 2));
  varint(out, BigInt(data.length));
  for (let i = 0; i < data.length; i++) out.push(data[i]);
}

function fixed64(out: number[], tag: number, value: bigint, double?: number): void {
  varint(out, BigInt((tag << 3) | 1));
  const view = new DataView(new ArrayBuffer(8));
  if (double === undefined) view.setBigUint64(0, BigInt.asUintN(64, value), true);
  else view.setFloat64(0, double, true);
  for (let i = 0; i < 8; i++) out.push(view.getUint8(i));
}

const hexBytes = (hex: string) => (hex.match(/[0-9a-f]{2}/gi) ?? []).map((b) => Number.parseInt(b, 16));

function field(out: number[], [, tag, type]: Field, value: unknown): void {
  if (type === "string") bytes(out, tag, utf8.encode(String(value)));
  else if (type === "hex") bytes(out, tag, hexBytes(String(value)));
  else if (type === "fixed64") fixed64(out, tag, BigInt(value as string | number));
  else if (type === "double") fixed64(out, tag, 0n, Number(value));
  else if (type === "varint" || type === "int64" || type === "bool") {
    varint(out, BigInt(tag << 3));
    varint(out, type === "bool" ? (value ? 1n : 0n) : BigInt(value as string | number));
  } else bytes(out, tag, message(type, value as Record<string, unknown>));
}

function message(name: keyof typeof SCHEMA, value: Record<string, unknown>): number[] {
  const out: number[] = [];
  for (const f of SCHEMA[name] as Field[]) {
    const v = value[f[0]];
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) field(out, f, item);
  }
  return out;
}

/** An OTLP/JSON ExportTraceServiceRequest as protobuf bytes. */
export const otlpProtobuf = (request: Record<string, unknown>): Uint8Array => Uint8Array.from(message("Request", request));
