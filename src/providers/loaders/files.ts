// Text-based file loaders: text, CSV (csv.ts), JSON and JSON Lines (json.ts). Metadata as
// LangChain's loaders give it (source = file name; line for rows and records), so record-manager
// cleanup can group by source.
import { Document } from "@langchain/core/documents";
import { csvLoader } from "./csv";
import { jsonLoaders } from "./json";
import { assertHasText, decodeTextWithin, isTextLike, needFiles } from "./text-util";
import type { LoaderDefinition } from "./types";

const textFileLoader: LoaderDefinition = {
  name: "textFile",
  aliases: ["txtFile"],
  label: "Text File",
  fileField: "txtFile",
  windows: "text",
  accepts: isTextLike,
  async load({ files, limits }) {
    needFiles(files, "textFile");
    const docs: Document[] = [];
    for (const f of files) docs.push(new Document({ pageContent: await decodeTextWithin(f, limits), metadata: { source: f.name } }));
    assertHasText(
      docs.map((d) => d.pageContent),
      files.map((f) => f.name).join(", "),
    );
    return docs.filter((d) => d.pageContent.trim());
  },
};

export const fileLoaders: LoaderDefinition[] = [textFileLoader, csvLoader, ...jsonLoaders];
