// The agentflow executor (AGENTFLOW.md §4): nodes become ready when their inputs arrived (joins.ts)
// and run as soon as they are ready, so branches with no dependency between them run concurrently;
// results are committed in start order (executed data, state, chat history, events, a checkpoint
// after every node), which keeps the stored trace and the stream deterministic. A Human Input (or a
// tool awaiting approval) pauses the run; a Loop queues its target again until its count is used up.
import { fail } from "../../errors";
import { RunAborted } from "../../lib/run-control";
import type { FlowMap } from "./graph";
import { type SubRunInit, iterate } from "./iteration";
import { Joins } from "./joins";
import type { IterationContext, NodeEmitter } from "./node-types";
import { agentflowNodes } from "./nodes/registry";
import { type ResolveScope, resolveInputs } from "./resolve";
import { type FlowState, changedKeys } from "./state";
import type { AgentflowMessage, AgentflowNode, ExecutedData, HumanInput, HumanInputAction, NodeResultData } from "./types";
import { isObject } from "./util";
import { NodeFailure, type Running, type Shared } from "./executor-types";

export { NodeFailure, type Shared } from "./executor-types";

/** Node runs per request (loops included) before the run is stopped as runaway. */
const MAX_STEPS = 1000;
/** A Loop's count when its output gives none (Flowise's MAX_LOOP_COUNT default). */
const FALLBACK_MAX_LOOP_COUNT = 10;

export interface RunInit {
  state: FlowState;
  pastChatHistory: AgentflowMessage[];
  form: Record<string, unknown>;
  executedData?: ExecutedData[];
  humanInput?: HumanInput;
  iteration?: IterationContext;
  /** The run an iteration sub-run belongs to. */
  parent?: AgentflowExecutor;
  /** Called with each entry this run commits (an iteration passes its children's up). */
  onEntry?: (entry: ExecutedData) => Promise<void>;
  /** An iteration's sub-run writes its frames into the Iteration node's channel. */
  channel?: NodeEmitter;
  /** Messages earlier nodes added (a resumed translated graph keeps its conversation, as LangGraph does). */
  runtimeChatHistory?: AgentflowMessage[];
}

export class AgentflowExecutor {
  executedData: ExecutedData[];
  state: FlowState;
  pastChatHistory: AgentflowMessage[];
  runtimeChatHistory: AgentflowMessage[] = [];
  form: Record<string, unknown>;
  action?: HumanInputAction;
  stopped = false;
  readonly controller = new AbortController();
  private readonly loopCounts = new Map<string, number>();
  private readonly joins: Joins;
  private humanInput?: HumanInput;
  private firstFailure?: NodeFailure;

  constructor(
    readonly shared: Shared,
    readonly map: FlowMap,
    readonly init: RunInit,
  ) {
    this.executedData = init.executedData ?? [];
    this.state = init.state;
    this.pastChatHistory = init.pastChatHistory;
    this.runtimeChatHistory = init.runtimeChatHistory ?? [];
    this.form = init.form;
    this.humanInput = init.humanInput;
    this.joins = new Joins(map);
    const outer = init.parent?.controller.signal ?? shared.ports.ctx.signal;
    if (outer?.aborted) this.controller.abort();
    outer?.addEventListener("abort", () => this.controller.abort(), { once: true });
  }

  get recursive(): boolean {
    return this.init.iteration !== undefined;
  }

  /** Executed data references see: the enclosing runs' and this run's. */
  visibleData(): ExecutedData[] {
    return this.init.parent ? [...this.init.parent.visibleData(), ...this.executedData] : this.executedData;
  }

  /** An Iteration's sub-run over the nodes of its block (iteration.ts). */
  subRun(block: FlowMap, init: SubRunInit): AgentflowExecutor {
    return new AgentflowExecutor(this.shared, block, { ...init, parent: this });
  }

  /** Stores the whole execution so far (an iteration's sub-run stores through the top run). */
  async checkpoint(): Promise<void> {
    if (this.init.parent) return this.init.parent.checkpoint();
    await this.shared.ports.checkpoint(this.executedData, "INPROGRESS");
  }

  /** Runs from `start` until nothing is left to run, or a pause. Throws NodeFailure. */
  async drive(start: string[]): Promise<void> {
    const queue = [...start];
    const running: Running[] = [];
    try {
      while ((queue.length && !this.stopped && !this.firstFailure) || running.length) {
        while (queue.length && !this.stopped && !this.firstFailure) running.push(this.launch(queue.shift()!));
        const head = running.shift()!;
        let done;
        try {
          done = await head.promise;
        } catch (err) {
          throw this.firstFailure ?? new NodeFailure(head.node, err);
        }
        if (done.pause) this.pause(head, done.result);
        else queue.push(...(await this.commit(head, done.result, done.startState)));
      }
      if (!this.stopped) this.checkJoins();
    } catch (err) {
      this.controller.abort();
      await Promise.allSettled(running.map((r) => r.promise));
      for (const r of running) r.channel.close();
      throw err; // a NodeFailure, or the checkpoint port's own failure (storage: the caller's to report)
    }
  }

  private launch(nodeId: string): Running {
    const node = this.map.nodes.get(nodeId)!;
    const outer = this.init.channel;
    const channel = outer ? { token: outer.token, event: outer.event, close: () => undefined } : this.shared.events.open();
    this.shared.events.node(node.id, node.data.label, "INPROGRESS");
    const around = this.shared.ports.aroundNode;
    const promise = around
      ? around(
          { id: node.id, label: node.data.label, name: node.data.name },
          () => this.execute(node, channel),
          (done) => ({ input: done.result.input, output: done.result.output }),
        )
      : this.execute(node, channel);
    promise.catch((err) => {
      this.firstFailure ??= new NodeFailure(node, err);
      this.controller.abort();
    });
    return { node, channel, promise };
  }

  private async execute(node: AgentflowNode, emit: NodeEmitter) {
    if (++this.shared.steps.count > MAX_STEPS) {
      throw fail("NODE_FAILED", `Maximum iteration limit reached: the flow ran ${MAX_STEPS} nodes (a loop without a reachable end?)`);
    }
    if (this.controller.signal.aborted) throw new RunAborted();
    const def = agentflowNodes.get(node.data.name)!;
    const humanInputAction = this.executedData.at(-1)?.data?.output?.humanInputAction as HumanInputAction | undefined;
    let humanInput: HumanInput | undefined;
    if (this.humanInput && this.humanInput.startNodeId === node.id) {
      humanInput = this.humanInput;
      this.humanInput = undefined;
      this.executedData = this.executedData.filter((e) => e.nodeId !== node.id);
    }
    const startState = structuredClone(this.state);
    const { request } = this.shared;
    const overrides = request.nodeOverrides?.[node.data.label] ?? request.nodeOverrides?.[node.id];
    const inputs = resolveInputs(node, def, { ...(node.data.inputs ?? {}), ...(overrides ?? {}) }, this.scope(startState));
    if (humanInput) inputs.humanInput = humanInput;
    const children = this.map.childrenOf(node.id);
    const work = async () => {
      const result = await this.runNode(def, node, inputs, startState, emit, humanInput, humanInputAction, children.length);
      return def.runsBlock ? await iterate(this, node, result, emit) : result;
    };
    // A detached run makes each top-level node one durable step (an iteration's children run inside
    // their Iteration node's step), named by the node and how many nodes ran before it.
    const { step } = this.shared.ports;
    const finished = step && !this.recursive ? await step(`node ${node.id} #${this.shared.steps.count}`, work) : await work();
    return { result: finished, pause: def.pauses?.(finished, humanInput !== undefined) === true, startState };
  }

  private runNode(
    def: NonNullable<ReturnType<typeof agentflowNodes.get>>,
    node: AgentflowNode,
    inputs: Record<string, unknown>,
    startState: FlowState,
    emit: NodeEmitter,
    humanInput: HumanInput | undefined,
    humanInputAction: HumanInputAction | undefined,
    childCount: number,
  ): Promise<NodeResultData> {
    const { request } = this.shared;
    return def.run({
      node,
      inputs,
      input: this.shared.input,
      rt: {
        request,
        ports: this.shared.ports,
        ctx: { ...this.shared.ports.ctx, signal: this.controller.signal },
        signal: this.controller.signal,
        state: startState,
        pastChatHistory: this.pastChatHistory,
        runtimeChatHistory: [...this.runtimeChatHistory],
        form: this.form,
        emit,
        streaming: request.streaming,
        isLastNode: !this.recursive && (!childCount || def.pauses?.(undefined, humanInput !== undefined) === true),
        humanInput,
        humanInputAction,
        iteration: this.init.iteration,
        now: this.shared.now,
      },
    });
  }

  private scope(state: FlowState): ResolveScope {
    const { request } = this.shared;
    const chatHistory = [...this.pastChatHistory, ...this.runtimeChatHistory];
    return {
      question: request.question ?? "",
      fileText: request.fileText ?? "",
      form: this.form,
      webhook: this.webhook(),
      flow: {
        chatflowId: request.chatflowId,
        chatflowid: request.chatflowId,
        chatId: request.chatId,
        sessionId: request.sessionId,
        apiMessageId: request.apiMessageId,
        chatHistory,
        runtimeChatHistoryLength: Math.max(0, this.runtimeChatHistory.length - 1),
        state,
      },
      vars: request.vars ?? {},
      chatHistory,
      executedData: this.visibleData(),
      iteration: this.init.iteration ? { value: this.init.iteration.value } : undefined,
      loopCount: this.lastLoopCount(),
      now: this.shared.now,
    };
  }

  /** The webhook that fired the run: the Start node's stored one (a resume keeps the original), else the request's. */
  private webhook(): Record<string, unknown> {
    const start = this.visibleData().find((e) => agentflowNodes.get(e.data?.name)?.start);
    const stored = start?.data?.output?.webhook;
    if (isObject(stored)) return stored;
    return (this.shared.request.webhook ?? {}) as unknown as Record<string, unknown>;
  }

  private lastLoopCount(): number {
    const loop = [...this.executedData].reverse().find((e) => agentflowNodes.get(e.data?.name)?.loopsBack);
    return loop ? (this.loopCounts.get(loop.nodeId) ?? 0) : 0;
  }

  private async commit(head: Running, result: NodeResultData, startState: FlowState): Promise<string[]> {
    const { node, channel } = head;
    const next: string[] = [];
    if (agentflowNodes.get(node.data.name)?.loopsBack && typeof result.output?.nodeID === "string") {
      const count = (this.loopCounts.get(node.id) ?? 0) + 1;
      const max = Number(result.output.maxLoopCount) || FALLBACK_MAX_LOOP_COUNT;
      if (count < max) {
        this.loopCounts.set(node.id, count);
        next.push(result.output.nodeID);
        this.humanInput = undefined;
      } else {
        const fallback =
          typeof result.output.fallbackMessage === "string" && result.output.fallbackMessage
            ? result.output.fallbackMessage
            : `Loop completed after reaching maximum iteration count of ${max}.`;
        if (this.shared.request.streaming && !this.recursive) channel.token(fallback);
        result.output = { ...result.output, content: fallback };
      }
    }
    const entry: ExecutedData = {
      nodeId: node.id,
      nodeLabel: node.data.label,
      data: result,
      previousNodeIds: this.map.parentsOf(node.id),
      status: "FINISHED",
    };
    this.executedData.push(entry);
    this.shared.events.node(node.id, node.data.label, "FINISHED");
    if (!this.recursive) this.shared.events.executedData(this.executedData);
    channel.close();
    if (isObject(result.state)) this.state = { ...this.state, ...changedKeys(startState, result.state) };
    if (Array.isArray(result.chatHistory)) this.runtimeChatHistory.push(...result.chatHistory);
    if (isObject(result.output?.form) && Object.keys(result.output.form).length) this.form = result.output.form;
    if (result.output?.ephemeralMemory === true) this.pastChatHistory = [];
    if (this.init.onEntry) await this.init.onEntry(entry);
    else await this.checkpoint();
    return [...this.joins.arrive(node.id, result), ...next];
  }

  private pause(head: Running, result: NodeResultData): void {
    const { node, channel } = head;
    const action: HumanInputAction = {
      id: crypto.randomUUID(),
      mapping: { approve: "Proceed", reject: "Reject" },
      elements: [
        { type: "agentflowv2-approve-button", label: "Proceed" },
        { type: "agentflowv2-reject-button", label: "Reject" },
      ],
      data: { nodeId: node.id, nodeLabel: node.data.label, input: result.input ?? {} },
    };
    this.executedData.push({
      nodeId: node.id,
      nodeLabel: node.data.label,
      data: { ...result, output: { ...result.output, humanInputAction: action } },
      previousNodeIds: this.map.parentsOf(node.id),
      status: "STOPPED",
    });
    const { events } = this.shared;
    events.node(node.id, node.data.label, "STOPPED");
    events.executedData(this.executedData);
    events.flow("STOPPED");
    events.emit("action", action);
    channel.close();
    this.stopped = true;
    this.action = action;
  }

  /** A join some of whose inputs arrived but whose others never ran: the run cannot go on as drawn. */
  private checkJoins(): void {
    const ran = new Set(this.executedData.map((e) => e.nodeId));
    const stuck = this.joins.stalled().find((s) => s.missing.some((m) => !ran.has(m)));
    if (!stuck) return;
    const node = this.map.nodes.get(stuck.nodeId)!;
    throw new NodeFailure(
      node,
      fail("INVALID_FLOW", `${node.data.label} (${node.id}) never ran: it waits for ${stuck.missing.join(", ")}, which did not run`),
    );
  }
}
