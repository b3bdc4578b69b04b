// Prepared flows kept by this isolate, keyed by the flow's type and its exact flowData text: what
// is immutable for a flow version (the parsed graph, its checks and plan, an agentflow V1 graph's translation) is computed once, not
// on every prediction. A saved change is new text, so it is a new entry; the old one ages out.
// A prepared flow holds no per-run state (each run gets its own context), so runs may share it.
export class PreparedFlowCache<P> {
  private readonly entries = new Map<string, P>();
  private bytes = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}

  /** The prepared flow for (type, flowData), preparing it on a miss; a refusal (400) is not kept. */
  get(type: string, flowData: string, prepare: () => P): P {
    const key = `${type}\n${flowData}`;
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key); // most recently used last
      this.entries.set(key, hit);
      return hit;
    }
    const prepared = prepare();
    if (key.length <= this.maxBytes) {
      this.entries.set(key, prepared);
      this.bytes += key.length;
      for (const [old] of this.entries) {
        if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
        this.entries.delete(old);
        this.bytes -= old.length;
      }
    }
    return prepared;
  }
}
