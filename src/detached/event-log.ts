// A detached run's frames on their way to its ExecutionEvents object, in Flowise's stream shape
// (`start` before the first token, as SseWriter sends it). Appends are sent in order and awaited
// by `flush`; nothing is sent while the run replays steps that already finished (their frames were
// sent the first time).
import type { StreamSink } from "../engine";
import type { RunFrame } from "./events-object";

export interface EventLog extends StreamSink {
  append(frames: RunFrame[]): void;
  /** Waits for every append sent so far. */
  flush(): Promise<void>;
}

export function eventLogOf(env: { EXECUTION_EVENTS: DurableObjectNamespace }, executionId: string, live: () => boolean): EventLog {
  const stub = env.EXECUTION_EVENTS.get(env.EXECUTION_EVENTS.idFromName(executionId)) as unknown as { append(frames: RunFrame[]): Promise<number> };
  let chain: Promise<unknown> = Promise.resolve();
  let started = false;
  const append = (frames: RunFrame[]) => {
    if (!live() || !frames.length) return;
    chain = chain.then(() => stub.append(frames)).catch((err) => console.error(`execution ${executionId}: a frame was not kept: ${String(err)}`));
  };
  return {
    append,
    token(text) {
      const frames: RunFrame[] = started ? [] : [{ event: "start", data: "" }];
      started = true;
      append([...frames, { event: "token", data: text }]);
    },
    event(name, data) {
      append([{ event: name, data }]);
    },
    flush: () => chain.then(() => undefined),
  };
}
