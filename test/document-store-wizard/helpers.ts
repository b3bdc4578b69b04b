// Shared by the wizard tests: files as the loader page sends them, and its body for a text file.
export const bytesToBase64 = (bytes: Uint8Array) => btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(""));
export const dataUri = (name: string, mime: string, data: string | Uint8Array) =>
  `data:${mime};base64,${bytesToBase64(typeof data === "string" ? new TextEncoder().encode(data) : data)},filename:${name}`;

export const PARAGRAPHS = ["Owls hunt at night over the meadow.", "Bees dance to tell where the flowers are.", "Moles dig tunnels."];
export const SPLIT = { splitterId: "characterTextSplitter", splitterConfig: { chunkSize: 50, chunkOverlap: 0, separator: "\n\n" } };

/** The loader page's body for a text file, as the page builds it from the node's inputs. */
export const textLoader = (storeId: string, extra: Record<string, unknown> = {}) => ({
  storeId,
  loaderId: "textFile",
  loaderName: "Animal notes",
  loaderConfig: {
    txtFile: dataUri("animals.txt", "text/plain", PARAGRAPHS.join("\n\n")),
    textSplitter: "",
    metadata: "",
    omitMetadataKeys: "",
  },
  ...SPLIT,
  splitterName: "Character Text Splitter",
  ...extra,
});
