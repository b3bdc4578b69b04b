// Flowise's SpeechToText category: `assemblyAI` is a descriptor only in Flowise (no init: it names the
// assemblyAIApi credential the chatflow's speech-to-text settings use). Transcription itself runs from
// those settings (`speechToText` provider assemblyAiTranscribe, src/providers/speech/, docs/speech.md);
// on a canvas the node builds nothing, as in Flowise, so a flow holding it still runs.
import type { NodeDefinition } from "../types";

export const speechToTextNodes: NodeDefinition[] = [{ name: "assemblyAI", category: "SpeechToText", build: async () => undefined }];
