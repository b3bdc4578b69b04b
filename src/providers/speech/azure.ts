// Azure AI Speech's fast transcription: POST {base}/speechtotext/transcriptions:transcribe?api-version=…
// (multipart: `audio`, and `definition` {locales, profanityFilterMode, channels}; the
// Ocp-Apim-Subscription-Key header) → combinedPhrases[0].text. The base is
// https://{serviceRegion}.cognitiveservices.azure.com, or AZURE_SPEECH_BASE_URL.
import { fail } from "../../errors";
import { str } from "../../lib/inputs";
import { audioBlob, baseUrlOf, callForJson, credentialFor, keyOf, needsCredential } from "./http";
import type { AudioClip, SpeechConfig, SpeechDeps, SpeechToTextProvider } from "./types";

const LABEL = "Azure Cognitive Services";

export const azureCognitive: SpeechToTextProvider = {
  name: "azureCognitive",
  label: LABEL,
  unusable: needsCredential(LABEL),
  async transcribe(clip: AudioClip, config: SpeechConfig, deps: SpeechDeps): Promise<string> {
    const credential = await credentialFor(config, deps, LABEL);
    const key = keyOf(credential, "azureSubscriptionKey", LABEL);
    const region = str(credential.serviceRegion);
    if (!region && !str(deps.env.AZURE_SPEECH_BASE_URL)) throw fail("MISSING_CREDENTIAL", `${LABEL}: the credential has no serviceRegion`);
    if (region && !/^[a-z0-9-]+$/i.test(region)) throw fail("MISSING_CREDENTIAL", `${LABEL}: serviceRegion ${region} is not a region name`);
    const base = baseUrlOf(
      [[deps.env.AZURE_SPEECH_BASE_URL, "AZURE_SPEECH_BASE_URL"]],
      `https://${region}.cognitiveservices.azure.com`,
      `${LABEL} endpoint`,
    );
    // The GA version: the preview Flowise defaults to was retired 90 days after it (Microsoft's notice).
    const version = encodeURIComponent(str(credential.apiVersion) ?? "2024-11-15");
    const channels = (str(config.channels) ?? "0,1")
      .split(",")
      .map(Number)
      .filter((n) => Number.isInteger(n));
    const definition = JSON.stringify({
      locales: [str(config.language) ?? "en-US"],
      profanityFilterMode: str(config.profanityFilterMode) ?? "Masked",
      channels,
    });
    const answer = await callForJson<{ combinedPhrases?: { text?: unknown }[] }>({
      provider: LABEL,
      url: `${base.url}/speechtotext/transcriptions:transcribe?api-version=${version}`,
      field: base.field,
      deps,
      init: () => {
        const form = new FormData();
        form.append("audio", audioBlob(clip.bytes, clip.mime), clip.name);
        form.append("definition", definition);
        return { method: "POST", headers: { "Ocp-Apim-Subscription-Key": key, accept: "application/json" }, body: form };
      },
    });
    const text = answer.combinedPhrases?.[0]?.text;
    return typeof text === "string" ? text.trim() : "";
  },
};
