import { env } from "cloudflare:workers";
import { call, json } from "../helpers";
import { type ExportFile, type ExportIds, flowiseExport } from "./flowise-export";

/** The openAIApi credential a Flowise export's flows name, made here under the same id (how a user moves credentials). */
export async function credentialLike(id = crypto.randomUUID()): Promise<string> {
  await json("POST", "/credentials", {
    body: { id, name: "moved openai", credentialName: "openAIApi", plainDataObj: { openAIApiKey: "sk-moved" } },
  });
  return id;
}

/** A fresh export of every record kind, its credential made here. */
export async function freshExport(): Promise<{ file: ExportFile; ids: ExportIds; credential: string }> {
  const credential = await credentialLike();
  return { ...flowiseExport(credential), credential };
}

export const importFile = (file: unknown, token?: string | null) =>
  call("POST", "/export-import/import", { body: file, ...(token !== undefined ? { token } : {}) });

export const exportWith = (flags: Record<string, unknown>, token?: string) =>
  call("POST", "/export-import/export", { body: flags, ...(token ? { token } : {}) });

export const ALL_FLAGS = {
  agentflow: true,
  agentflowv2: true,
  assistantCustom: true,
  assistantOpenAI: true,
  assistantAzure: true,
  chatflow: true,
  chat_message: true,
  chat_feedback: true,
  custom_template: true,
  document_store: true,
  execution: true,
  tool: true,
  variable: true,
};

export const count = async (sql: string, ...params: unknown[]) =>
  Number(
    await env.DB.prepare(sql)
      .bind(...params)
      .first("n"),
  );

export const stagedRows = () => count("SELECT COUNT(*) AS n FROM import_stage");
