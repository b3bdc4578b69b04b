// apifyWebsiteContentCrawler (credential apifyApi: apifyApiToken, sent as Bearer): runs the actor
// apify/website-content-crawler as the Apify client's actor.call does — POST {APIFY_BASE_URL}/v2/acts/
// apify~website-content-crawler/runs with the input (startUrls from the comma-separated `urls`,
// crawlerType, maxCrawlDepth, maxCrawlPages, then `additionalInput` merged), then GET
// /v2/actor-runs/{id}?waitForFinish=… until the run ends (5 min at most) — then reads its default
// dataset (GET /v2/datasets/{id}/items?clean=true): one document per item, {text} with {source: url}.
// A run that ends other than SUCCEEDED is a 502 naming its status.
import { Document } from "@langchain/core/documents";
import { fail } from "../../../errors";
import { overLimit } from "../../../lib/limits";
import { credentialOf } from "../../config";
import type { LoaderDefinition, LoaderInput } from "../types";
import { hostedJson, serviceBase } from "./call";

const ACTOR = "apify~website-content-crawler";
const RUN_DEADLINE_MS = 5 * 60_000;
/** Seconds Apify holds a run request open waiting for the end (below the calls' 30 s deadline). */
const WAIT_SECS = 20;
const TERMINAL = new Set(["SUCCEEDED", "FAILED", "ABORTED", "TIMED-OUT"]);

const str = (v: unknown) => (typeof v === "string" ? v.trim() : "");
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

function additional(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null || value === "") return {};
  let v = value;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      throw fail("INVALID_INPUT", "apifyWebsiteContentCrawler additionalInput must be a JSON object");
    }
  }
  if (!isObject(v)) throw fail("INVALID_INPUT", "apifyWebsiteContentCrawler additionalInput must be a JSON object");
  return v;
}

const int = (v: unknown) => {
  const n = Number.parseInt(String(v ?? ""), 10);
  return Number.isFinite(n) ? n : undefined;
};

async function loadApify(input: LoaderInput): Promise<Document[]> {
  const { config } = input;
  const urls = str(config.urls)
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
  if (!urls.length) throw fail("INVALID_INPUT", "apifyWebsiteContentCrawler needs urls: the start URLs, separated by commas");
  const actorInput = Object.fromEntries(
    Object.entries({
      startUrls: urls.map((url) => ({ url })),
      crawlerType: str(config.crawlerType) || "playwright:firefox",
      maxCrawlDepth: int(config.maxCrawlDepth),
      maxCrawlPages: int(config.maxCrawlPages),
      ...additional(config.additionalInput),
    }).filter(([, v]) => v !== undefined),
  );
  const cred = (input.getCredential ? await credentialOf(config, { getCredential: input.getCredential }).catch(() => ({})) : {}) as Record<
    string,
    unknown
  >;
  const token = str(cred.apifyApiToken);
  if (!token) throw fail("INVALID_INPUT", "apifyWebsiteContentCrawler needs an apifyApi credential with apifyApiToken");
  const base = serviceBase(input.services?.APIFY_BASE_URL, "https://api.apify.com");
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
  const call = async (path: string, body?: unknown) =>
    hostedJson(input, {
      service: "Apify",
      field: "APIFY_BASE_URL",
      url: `${base}${path}`,
      init: body === undefined ? { headers } : { method: "POST", headers, body: JSON.stringify(body) },
      secrets: [token],
    });
  const runOf = (answer: unknown) => (isObject(answer) && isObject(answer.data) ? answer.data : {});
  let run = runOf(await call(`/v2/acts/${ACTOR}/runs?waitForFinish=${WAIT_SECS}`, actorInput));
  const id = str(run.id);
  if (!id) throw fail("UPSTREAM_FAILED", "Apify answered a run without an id");
  const deadline = Date.now() + RUN_DEADLINE_MS;
  while (!TERMINAL.has(String(run.status))) {
    if (Date.now() > deadline) throw fail("TIMEOUT", `Apify's crawler run ${id} did not finish within ${RUN_DEADLINE_MS / 60_000} min`);
    run = runOf(await call(`/v2/actor-runs/${encodeURIComponent(id)}?waitForFinish=${WAIT_SECS}`));
  }
  if (run.status !== "SUCCEEDED") throw fail("UPSTREAM_FAILED", `Apify's crawler run ${id} ended ${String(run.status)}`);
  const dataset = str(run.defaultDatasetId);
  if (!dataset) throw fail("UPSTREAM_FAILED", `Apify's crawler run ${id} has no dataset`);
  const items = await call(`/v2/datasets/${encodeURIComponent(dataset)}/items?clean=true&format=json`);
  if (!Array.isArray(items)) throw fail("UPSTREAM_FAILED", "Apify answered dataset items that are not a list");
  if (items.length > input.limits.chunks) throw overLimit(input.limits, "chunks", "Apify's crawl", items.length);
  return items.map(
    (item) =>
      new Document({
        pageContent: isObject(item) && typeof item.text === "string" ? item.text : "",
        metadata: { source: isObject(item) ? item.url : undefined },
      }),
  );
}

export const apifyLoader: LoaderDefinition = {
  name: "apifyWebsiteContentCrawler",
  label: "Apify Website Content Crawler",
  load: loadApify,
};
