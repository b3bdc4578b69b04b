// Flowise's S3 loaders over S3's REST API (SigV4, service s3; providers/aws/client.ts):
//   S3           one object (bucketName, keyName): GetObject, read by our loader for its kind
//   s3Directory  every object under `prefix`: ListObjectsV2 (all pages), then GetObject each
// Each object is read by the File Loader's rules (by extension: pdf, docx, csv, json, xlsx, pptx,
// epub…, else text; pdfUsage for PDFs), so both nodes read what our file loaders read. Flowise's
// S3 node can also send the object to Unstructured (fileProcessingMethod "unstructured"): not done
// here, the object is read by our own loaders whatever that input says. Addressing as the AWS SDK
// does: https://<bucket>.s3.<region>.amazonaws.com/<key> (virtual-host), or path-style
// <base>/<bucket>/<key> on s3Directory's Server URL (serverUrl) or AWS_S3_BASE_URL.
import type { Document } from "@langchain/core/documents";
import { fail } from "../../errors";
import { str } from "../../lib/inputs";
import { AWS_SERVICES, type AwsClient, awsClient, awsSend } from "../aws/client";
import { awsCredentials, regionOf } from "../aws/config";
import { fileLoader } from "./file-loader";
import type { LoaderDefinition, LoaderInput } from "./types";

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** Objects a directory load reads at most. */
const MAX_OBJECTS = 1000;

interface Bucket {
  client: AwsClient;
  /** Path segments before the key: [bucket] path-style, [] virtual-host. */
  lead: string[];
  name: string;
}

async function bucketOf(input: LoaderInput, node: string, serverUrl?: string): Promise<Bucket> {
  const { config } = input;
  const name = str(config.bucketName);
  if (!name || !BUCKET.test(name)) throw fail("INVALID_FLOW", `${node} needs a valid S3 bucket name (bucketName), got ${name ?? "none"}`);
  const region = regionOf(config, node);
  const env = { ...input.services, ...input.outbound };
  const deps = { env, getCredential: input.getCredential ?? (async () => ({})) };
  const credentials = await awsCredentials(config, deps, node);
  const configured = serverUrl ? { value: serverUrl, field: `${node} serverUrl` } : undefined;
  const pathStyle = !!configured || !!env.AWS_S3_BASE_URL?.trim() || name.includes(".");
  const base = configured ?? (pathStyle ? undefined : { value: `https://${name}.s3.${region}.amazonaws.com`, field: `${node} endpoint` });
  const client = awsClient(AWS_SERVICES.s3, region, credentials, env, { base });
  return { client, lead: pathStyle ? [name] : [], name };
}

const unescapeXml = (s: string) =>
  s.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-f]+);/gi, (_, e: string) => {
    const named: Record<string, string> = { lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" };
    if (named[e.toLowerCase()]) return named[e.toLowerCase()];
    return String.fromCodePoint(e[1] === "x" || e[1] === "X" ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1)));
  });

/** ListObjectsV2 under `prefix`, every page: the keys of objects (ETag set, as Flowise keeps them). */
async function listKeys(b: Bucket, prefix: string | undefined, node: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const query: Record<string, string> = {
      "list-type": "2",
      ...(prefix ? { prefix } : {}),
      ...(token ? { "continuation-token": token } : {}),
    };
    const xml = (await awsSend(b.client, { method: "GET", path: b.lead.length ? b.lead : [""], query })).text();
    for (const m of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
      const key = /<Key>([\s\S]*?)<\/Key>/.exec(m[1])?.[1];
      if (key && /<ETag>/.test(m[1]) && !key.endsWith("/")) keys.push(unescapeXml(key));
    }
    if (keys.length > MAX_OBJECTS) throw fail("LIMIT_EXCEEDED", `${node}: more than ${MAX_OBJECTS} objects under this prefix`);
    token = /<IsTruncated>true<\/IsTruncated>/.test(xml) ? /<NextContinuationToken>([^<]*)</.exec(xml)?.[1] : undefined;
    if (token) token = unescapeXml(token);
  } while (token);
  return keys;
}

/** GetObject, then the File Loader's reading; Flowise's S3 metadata on each document. */
async function readObject(input: LoaderInput, b: Bucket, key: string): Promise<Document[]> {
  const answer = await awsSend(b.client, { method: "GET", path: [...b.lead, ...key.split("/")] }, input.maxBytes);
  const fileName = key.split("/").pop() || key;
  const mime = (answer.headers.get("content-type") ?? "").split(";")[0].trim();
  const config = { ...input.config, metadata: undefined, omitMetadataKeys: undefined };
  const docs = await fileLoader.load({ ...input, config, files: [{ name: fileName, mime, bytes: answer.bytes }] });
  for (const d of docs) Object.assign(d.metadata, { source: `s3://${b.name}/${key}`, fileName, bucketName: b.name, fileId: key });
  return docs;
}

export const s3Loaders: LoaderDefinition[] = [
  {
    name: "S3",
    label: "S3",
    async load(input) {
      const key = str(input.config.keyName);
      if (!key) throw fail("INVALID_FLOW", "S3 needs the object's key (keyName)");
      return readObject(input, await bucketOf(input, "S3"), key);
    },
  },
  {
    name: "s3Directory",
    label: "S3 Directory",
    async load(input) {
      const b = await bucketOf(input, "s3Directory", str(input.config.serverUrl));
      const docs: Document[] = [];
      for (const key of await listKeys(b, str(input.config.prefix), "s3Directory")) docs.push(...(await readObject(input, b, key)));
      return docs;
    },
  },
];
