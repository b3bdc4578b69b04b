// Speech: speech to text before a run (transcribe.ts), text to speech on request (speak.ts), and
// what a chatflow's speech settings allow (settings.ts). HTTP-free; docs/speech.md.
export { hearRecordings, isAudioUpload } from "./transcribe";
export { chatflowWithSpeech } from "./capabilities";
export { abortSpeech, listVoices, speak } from "./speak";
export type { SpeakRequest } from "./speak";
