// A detached run's frames on their way to its ExecutionEvents object, in Flowise's stream shape
// (`start` before the first token, as SseWriter sends it). Appends are sent in order and awaited
// by `flush`. While a restarted run replays, frames are held: those made before a step whose
// stored result is answered were sent the first time and are dropped; those before the first step
// that runs anew (its node's INPROGRESS, say) go out when it starts.
import type { StreamSink } from "../engine";
import type { RunFrame } from "./events-object";

export interface EventLog extends StreamSink {
  append(frames: RunFrame[]): void;
  /** Waits for every append sent so far. */
  flush(): Promise<void>;
  /** After a step: `ran` sends the frames held for it, a replayed step drops them. */
  stepped(ran: boolean): void;
}

export function eventLogOf(env: { EXECUTION_EVENTS: DurableObjectNamespace }, executionId: string, live: () => boolean): EventLog {
  const stub = env.EXECUTION_EVENTS.get(env.EXECUTION_EVENTS.idFromName(executionId)) as unknown as {
    append(frames: RunFrame[]): Promise<number>;
  };
  let chain: Promise<unknown> = Promise.resolve();
  let started = false;
  let held: RunFrame[] = [];
  const send = (frames: RunFrame[]) => {
    if (!frames.length) return;
    chain = chain
      .then(() => stub.append(frames))
      .catch((err) => console.error(`execution ${executionId}: a frame was not kept: ${String(err)}`));
  };
  const append = (frames: RunFrame[]) => {
    if (live()) send(frames);
    else held.push(...frames);
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
    stepped(ran) {
      const frames = held;
      held = [];
      if (ran) send(frames);
    },
  };
}
