// Flowise's agentflow stream frames (AGENTFLOW.md §8) through the `events` port. Branches run
// concurrently, but a client must read one node's tokens at a time: each running node gets a
// channel; the oldest running node's channel is live, the others buffer until it is their turn
// (nodes commit in start order, so frames come out in the order the executed data has them).
import type { NodeEmitter } from "./node-types";
import type { AgentflowEvents, ExecutedData, NodeStatus } from "./types";

interface Channel extends NodeEmitter {
  /** A frame held back, and how to send it as made where it was (AgentflowEvents.hold). */
  buffered: Array<[string, unknown, ((send: () => void) => void) | undefined]>;
  live: boolean;
}

export class EventStream {
  private readonly channels: Channel[] = [];

  /**
   * `sink` is undefined when the request did not ask for a stream: every frame is dropped; without
   * `tokens` (an observed run whose answer is post-processed) only the tokens are.
   */
  constructor(
    private readonly sink: AgentflowEvents | undefined,
    private readonly tokens = true,
  ) {}

  get enabled(): boolean {
    return this.sink !== undefined;
  }

  /** A run-level frame, written now. */
  emit(name: string, data: unknown): void {
    this.sink?.event(name, data);
  }

  flow(status: string): void {
    this.emit("agentFlowEvent", status);
  }

  node(nodeId: string, nodeLabel: string, status: NodeStatus, error?: string): void {
    this.emit("nextAgentFlow", error === undefined ? { nodeId, nodeLabel, status } : { nodeId, nodeLabel, status, error });
  }

  /** The whole executed data so far (credential ids not stripped, as Flowise streams it). */
  executedData(data: ExecutedData[]): void {
    if (this.sink) this.emit("agentFlowExecutedData", structuredClone(data));
  }

  /** A channel for a node starting now; live when no earlier node is still running. */
  open(): NodeEmitter & { close(): void } {
    const channel: Channel = {
      buffered: [],
      live: this.channels.length === 0,
      event: (name, data) => {
        if (!this.sink) return;
        if (channel.live) this.sink.event(name, data);
        else channel.buffered.push([name, structuredClone(data), this.sink.hold?.()]);
      },
      token: (text) => {
        if (text && this.tokens) channel.event("token", text);
      },
    };
    this.channels.push(channel);
    return Object.assign(channel, { close: () => this.close(channel) });
  }

  private close(channel: Channel): void {
    const at = this.channels.indexOf(channel);
    if (at < 0) return;
    this.channels.splice(at, 1);
    const head = this.channels[0];
    if (head && !head.live) {
      head.live = true;
      for (const [name, data, from] of head.buffered.splice(0)) {
        const send = () => this.sink?.event(name, data);
        if (from) from(send);
        else send();
      }
    }
  }
}
