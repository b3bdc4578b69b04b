// A trace's items split into request bodies under a backend's size limit. The limits are in bytes
// (Langfuse 3.5 MB a batch, LangWatch 10 MB, OTLP receivers 20 MiB), and a body goes out as UTF-8:
// JSON.stringify leaves non-ASCII text as it is, so a CJK character is 3 bytes and an emoji 4.
import { chunkBy } from "../../lib/chunk";
import { utf8Length } from "../../lib/utf8";

/** JSON texts in groups whose UTF-8 bytes, each with its comma, add up to at most `maxBytes` (one larger goes alone). */
export const jsonGroups = (jsons: string[], maxBytes: number): string[][] =>
  chunkBy(jsons, Number.POSITIVE_INFINITY, maxBytes, (json) => utf8Length(json) + 1);
