// Speech to text before the run (services/speech): a request carrying recordings runs with their
// transcript as its question, so the answer's `question` and the stored user message hold it (the
// recordings are kept as the message's uploads). A request without one is passed on unchanged, as is
// a detached run's part in its Workflow (heard when the run was accepted).
import { hearRecordings, isAudioUpload } from "../speech";
import type { Ready } from "./prepare";
import type { RunDeps, RunRequest } from "./types";

/** Whether a request carries a recording to hear (a detached run's part does not: it was heard when accepted). */
export const carriesRecordings = (request: RunRequest): boolean => !request.steps && (request.uploads ?? []).some(isAudioUpload);

export async function withHeardRecordings(deps: RunDeps, ready: Ready, request: RunRequest): Promise<RunRequest> {
  if (!carriesRecordings(request)) return request;
  const uploads = request.uploads ?? [];
  const question = await hearRecordings(deps, {
    speechToText: ready.flow.speechToText,
    uploads,
    question: request.input.question,
    getCredential: ready.prefetched.getCredential,
    signal: request.signal,
  });
  return question === undefined ? request : { ...request, input: { ...request.input, question } };
}
