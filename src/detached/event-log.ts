// A detached run's frames on their way to its ExecutionEvents object, in Flowise's stream shape
// (`start` before the first token, as SseWriter sends it). Appends are sent in order and awaited
// by `flush`. Every frame carries a key, so that a run cut off by a restart, which sends some of
// its frames again, leaves each in the log once (events-object.ts drops a key it has):
// - a frame a step's work makes belongs to that attempt of the step (steps.ts `stepScope`): a new
//   attempt of an interrupted step replaces the frames the cut-off one left;
// - a frame made between steps (a node starting or finishing, the executed data) is keyed by its
//   content and how many frames of the same content this part made before it: a replay makes them
//   again, identical, from the steps' stored results;
// - `start` is keyed once per part.
// While a restarted run replays, frames are also held back (a saving, not a need): those made
// before a step whose stored result is answered were sent the first time and are dropped; those
// before the first step that runs anew go out when it starts.
import type { StreamSink } from "../engine";
import { quickHash } from "../lib/crypto";
import type { KeyedFrame, RunFrame } from "./events-object";
import { stepScope } from "./steps";

export interface EventLog extends StreamSink {
  append(frames: RunFrame[]): void;
  /** Waits for every append sent so far. */
  flush(): Promise<void>;
  /** After a step: `ran` sends the frames held for it, a replayed step drops them. */
  stepped(ran: boolean): void;
  /** Where a frame held back is made: answers how to send it later as made there (its step attempt). */
  hold(): (send: () => void) => void;
}

/** `prefix`: the part of the run (its steps' prefix), so each part's keys are its own. */
export function eventLogOf(
  env: { EXECUTION_EVENTS: DurableObjectNamespace },
  executionId: string,
  prefix: string,
  live: () => boolean,
): EventLog {
  const stub = env.EXECUTION_EVENTS.get(env.EXECUTION_EVENTS.idFromName(executionId)) as unknown as {
    append(frames: KeyedFrame[]): Promise<number>;
  };
  let chain: Promise<unknown> = Promise.resolve();
  let started = false;
  let held: KeyedFrame[] = [];
  const made = new Map<string, number>();
  const keyed = (frame: RunFrame): KeyedFrame => {
    const scope = stepScope.getStore();
    if (scope) return { ...frame, scope: scope.name, attempt: scope.attempt, key: `${scope.name}@${scope.attempt}#${scope.frames++}` };
    const hash = quickHash(`${frame.event}\n${JSON.stringify(frame.data ?? "")}`);
    const n = made.get(hash) ?? 0;
    made.set(hash, n + 1);
    return { ...frame, key: `${prefix}${frame.event}:${hash}:${n}` };
  };
  const send = (frames: KeyedFrame[]) => {
    if (!frames.length) return;
    chain = chain
      .then(() => stub.append(frames))
      .catch((err) => console.error(`execution ${executionId}: a frame was not kept: ${String(err)}`));
  };
  const put = (frames: KeyedFrame[]) => {
    if (live()) send(frames);
    else held.push(...frames);
  };
  const append = (frames: RunFrame[]) => put(frames.map(keyed));
  return {
    append,
    token(text) {
      const frames: KeyedFrame[] = started ? [] : [{ event: "start", data: "", key: `${prefix}start` }];
      started = true;
      put([...frames, keyed({ event: "token", data: text })]);
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
    hold() {
      const scope = stepScope.getStore();
      return scope ? (fn) => stepScope.run(scope, fn) : (fn) => fn();
    },
  };
}
