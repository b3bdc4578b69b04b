// AWS services stand-in (one server, told apart by the SigV4 scope's service): Bedrock Agent Runtime
// (POST /knowledgebases/{id}/retrieve), SNS's Query API (POST / Action=Publish, XML answers),
// DynamoDB's JSON 1.0 API (X-Amz-Target DynamoDB_20120810.PutItem | Query | GetItem | UpdateItem,
// tables kept in memory) and S3's REST API, path-style (GET /{bucket}?list-type=2, GET
// /{bucket}/{key}). Every request's signature is recomputed here with node:crypto, independently of
// the worker's signer, from the scope's region and service (S3: the path as sent, the
// x-amz-content-sha256 header checked against the body); a wrong one is AWS's 403.
// GET /requests?contains=<marker> lists the requests whose body or path holds the marker.
import { createHash, createHmac } from "node:crypto";
import { createServer } from "node:http";
import { BEDROCK_TEST_KEY } from "./bedrock.mjs";

const sha256 = (data) => createHash("sha256").update(data).digest("hex");
const hmac = (key, data) => createHmac("sha256", key).update(data).digest();
const enc = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const SERVICES = new Set(["bedrock", "sns", "dynamodb", "s3", "kendra"]);

/** {service, region} when the signature is right, else {error: [status, code, message]}. */
function verify(req, raw) {
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      req.headers.authorization ?? "",
    );
  if (!m) return { error: [403, "MissingAuthenticationToken", "Missing Authentication Token"] };
  const [, key, day, region, service, signedHeaders, signature] = m;
  if (key !== BEDROCK_TEST_KEY.id)
    return { error: [403, "InvalidClientTokenId", "The security token included in the request is invalid."] };
  const stamp = req.headers["x-amz-date"] ?? "";
  const names = signedHeaders.split(";");
  if (!stamp.startsWith(day) || !SERVICES.has(service) || !names.includes("host") || !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region))
    return { error: [403, "SignatureDoesNotMatch", "Credential should be scoped to a valid region and service."] };
  const url = new URL(req.url ?? "/", "http://standin");
  const payload = sha256(raw);
  if (service === "s3" && req.headers["x-amz-content-sha256"] !== payload)
    return { error: [400, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed."] };
  const path = service === "s3" ? url.pathname : url.pathname.split("/").map(enc).join("/");
  const query = [...url.searchParams.entries()]
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .sort()
    .join("&");
  const headers = names
    .map(
      (n) =>
        `${n}:${String(req.headers[n] ?? "")
          .trim()
          .replace(/\s+/g, " ")}\n`,
    )
    .join("");
  const canonical = [req.method, path, query, headers, signedHeaders, payload].join("\n");
  const toSign = ["AWS4-HMAC-SHA256", stamp, `${day}/${region}/${service}/aws4_request`, sha256(canonical)].join("\n");
  let k = hmac(`AWS4${BEDROCK_TEST_KEY.secret}`, day);
  for (const part of [region, service, "aws4_request"]) k = hmac(k, part);
  if (hmac(k, toSign).toString("hex") !== signature)
    return { error: [403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided."] };
  return { service, region };
}

const xmlEscape = (s) =>
  String(s).replace(/[<>&'"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" })[c]);

// ---- S3 fixtures: bucket → key → [content-type, body] ----------------------------------------
const BUCKETS = {
  "edgeflow-docs": {
    "notes/alpha.txt": ["text/plain", "Alpha notes: the ferry leaves at nine."],
    "notes/beta.md": ["text/markdown", "# Beta\nThe bridge opens at ten."],
    "notes/table.csv": ["text/csv", "city,river\nParis,Seine\nRome,Tiber\n"],
    "notes/sub/gamma & co.json": ["application/json", JSON.stringify({ name: "gamma", note: "nested object" })],
    "notes/folder/": ["application/x-directory", ""],
    "other/skip.txt": ["text/plain", "not under the prefix"],
  },
};
const PAGE = 2;

// ---- DynamoDB: table → item key (JSON of the key attributes) → item -------------------------
const tables = new Map();
const tableOf = (name) => {
  if (!tables.has(name)) tables.set(name, new Map());
  return tables.get(name);
};

function dynamo(op, body) {
  const name = body.TableName;
  if (!name || name.startsWith("missing"))
    return [400, { __type: "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", message: "Requested resource not found" }];
  const table = tableOf(name);
  if (op === "PutItem") {
    const item = body.Item;
    table.set(JSON.stringify([item.pk, item.sk]), item);
    return [200, {}];
  }
  if (op === "Query") {
    if (body.KeyConditionExpression !== "pk = :pk") return [400, { __type: "ValidationException", message: "unsupported key condition" }];
    const pk = body.ExpressionAttributeValues[":pk"].S;
    const items = [...table.values()].filter((i) => i.pk?.S === pk).sort((a, b) => Number(a.sk.S) - Number(b.sk.S));
    if (body.ScanIndexForward === false) items.reverse();
    const page = items.slice(0, body.Limit ?? items.length);
    return [200, { Items: page, Count: page.length, ScannedCount: page.length }];
  }
  const key = JSON.stringify(body.Key);
  if (op === "GetItem") return [200, table.has(key) ? { Item: table.get(key) } : {}];
  if (op === "UpdateItem") {
    if (body.UpdateExpression !== "SET #m = list_append(if_not_exists(#m, :empty_list), :m)")
      return [400, { __type: "ValidationException", message: "unsupported update expression" }];
    const attr = body.ExpressionAttributeNames["#m"];
    const item = table.get(key) ?? { ...body.Key };
    item[attr] = { L: [...(item[attr]?.L ?? body.ExpressionAttributeValues[":empty_list"].L), ...body.ExpressionAttributeValues[":m"].L] };
    table.set(key, item);
    return [200, {}];
  }
  return [400, { __type: "UnknownOperationException", message: `no ${op}` }];
}

// ---- Kendra: index → documents put with BatchPutDocument ---------------------------------------
const indexes = new Map();

function kendra(op, body) {
  const id = body.IndexId;
  if (!id || id.startsWith("missing"))
    return [400, { __type: "com.amazonaws.kendra#ResourceNotFoundException", Message: `Index ${id} not found` }];
  if (!indexes.has(id)) indexes.set(id, []);
  const docs = indexes.get(id);
  if (op === "BatchPutDocument") {
    if (body.Documents.length > 10) return [400, { __type: "ValidationException", Message: "at most 10 documents" }];
    for (const d of body.Documents)
      docs.push({ id: d.Id, title: d.Title, text: Buffer.from(d.Blob, "base64").toString("utf8"), type: d.ContentType });
    return [200, { FailedDocuments: [] }];
  }
  const words = String(body.QueryText)
    .toLowerCase()
    .split(/\W+/)
    .filter((w) => w.length > 3);
  const hits = docs.filter((d) => words.some((w) => d.text.toLowerCase().includes(w))).slice(0, body.PageSize ?? 10);
  if (op === "Retrieve") {
    if (id.startsWith("query-only")) return [200, { ResultItems: [] }];
    return [
      200,
      {
        ResultItems: hits.map((d) => ({
          Id: d.id,
          DocumentId: d.id,
          DocumentTitle: d.title,
          Content: `${d.text}  ...`,
          DocumentURI: `https://kendra.example/${d.id}`,
          DocumentAttributes: [{ Key: "_category", Value: { StringValue: "notes" } }],
        })),
      },
    ];
  }
  if (op === "Query")
    return [
      200,
      {
        ResultItems: [
          {
            Id: "q1",
            Type: "ANSWER",
            DocumentTitle: { Text: "FAQ" },
            DocumentURI: "https://kendra.example/faq",
            AdditionalAttributes: [
              {
                Key: "AnswerText",
                ValueType: "TEXT_WITH_HIGHLIGHTS_VALUE",
                Value: { TextWithHighlightsValue: { Text: `Answer   for ${body.QueryText}` } },
              },
            ],
          },
        ],
      },
    ];
  return [400, { __type: "UnknownOperationException", Message: `no ${op}` }];
}

/** Seeds a DynamoDB item (tests: a table "Flowise filled"). */
export function seedDynamo(table, key, item) {
  tableOf(table).set(JSON.stringify(key), { ...key, ...item });
}

export function startAwsServicesStandin() {
  const requests = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks).toString("utf8");
    const send = (status, type, body, headers = {}) => {
      res.writeHead(status, { "content-type": type, ...headers });
      res.end(body);
    };
    const json = (status, value, type = "application/json") => send(status, type, JSON.stringify(value));
    if (url.pathname === "/requests") {
      const marker = url.searchParams.get("contains") ?? "";
      const list = requests.filter((r) => r.raw.includes(marker) || r.path.includes(marker));
      return json(
        200,
        list.map(({ raw: _raw, ...r }) => ({ ...r, body: _raw })),
      );
    }
    if (url.pathname === "/seed/dynamodb" && req.method === "POST") {
      const { table, key, item } = JSON.parse(raw);
      seedDynamo(table, key, item);
      return json(200, { ok: true });
    }
    requests.push({ method: req.method, path: url.pathname + url.search, headers: { ...req.headers }, raw });
    const signed = verify(req, raw);
    if (signed.error) {
      const [status, code, message] = signed.error;
      if (url.pathname === "/" && req.method === "POST" && !req.headers["x-amz-target"]) {
        return send(
          status,
          "text/xml",
          `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error></ErrorResponse>`,
        );
      }
      if (req.method === "GET") return send(status, "application/xml", `<Error><Code>${code}</Code><Message>${message}</Message></Error>`);
      res.setHeader("x-amzn-errortype", code);
      return json(status, { message });
    }
    const { service } = signed;
    if (service === "bedrock") {
      const m = /^\/knowledgebases\/([^/]+)\/retrieve$/.exec(url.pathname);
      if (!m || req.method !== "POST") return json(404, { message: `no route ${url.pathname}` });
      const id = decodeURIComponent(m[1]);
      const body = JSON.parse(raw);
      if (id === "kb-missing") {
        res.setHeader("x-amzn-errortype", "ResourceNotFoundException:http://internal.amazon.com/coral/com.amazon.bedrock/");
        return json(404, { message: `Knowledge base ${id} does not exist` });
      }
      if (id === "kb-broken") return json(500, { message: "internal failure" });
      const n = body.retrievalConfiguration?.vectorSearchConfiguration?.numberOfResults ?? 5;
      const query = body.retrievalQuery?.text ?? "";
      const results = Array.from({ length: Math.min(n, 3) }, (_, i) => ({
        content: { text: `Chunk ${i + 1}   about\n ${query}... end`, type: "TEXT" },
        location:
          i === 2
            ? { type: "WEB", webLocation: { url: "https://example.com/page" } }
            : { type: "S3", s3Location: { uri: `s3://kb/doc${i + 1}.txt` } },
        metadata: { "x-amz-bedrock-kb-chunk-id": `chunk-${i + 1}` },
        score: 0.9 - i * 0.1,
      }));
      return json(200, { retrievalResults: results });
    }
    if (service === "sns") {
      const form = new URLSearchParams(raw);
      const xmlError = (status, code, message) =>
        send(
          status,
          "text/xml",
          `<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>r</RequestId></ErrorResponse>`,
        );
      if (form.get("Action") !== "Publish" || form.get("Version") !== "2010-03-31")
        return xmlError(400, "InvalidAction", "unsupported action");
      if (!form.get("TopicArn") || /missing/.test(form.get("TopicArn"))) return xmlError(404, "NotFound", "Topic does not exist");
      const id = `msg-${sha256(raw).slice(0, 12)}`;
      return send(
        200,
        "text/xml",
        `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>${id}</MessageId></PublishResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></PublishResponse>`,
      );
    }
    if (service === "dynamodb") {
      const target = /^DynamoDB_20120810\.(\w+)$/.exec(req.headers["x-amz-target"] ?? "");
      if (!target || req.headers["content-type"] !== "application/x-amz-json-1.0")
        return json(400, { __type: "UnknownOperationException", message: "bad target" });
      const [status, body] = dynamo(target[1], JSON.parse(raw || "{}"));
      return json(status, body, "application/x-amz-json-1.0");
    }
    if (service === "s3") {
      const [, bucketName, ...rest] = url.pathname.split("/");
      const bucket = BUCKETS[decodeURIComponent(bucketName)];
      const s3Error = (status, code, message) =>
        send(status, "application/xml", `<Error><Code>${code}</Code><Message>${message}</Message></Error>`);
      if (!bucket) return s3Error(404, "NoSuchBucket", "The specified bucket does not exist");
      if (!rest.length || (rest.length === 1 && rest[0] === "")) {
        if (url.searchParams.get("list-type") !== "2") return s3Error(400, "InvalidArgument", "list-type=2 expected");
        const prefix = url.searchParams.get("prefix") ?? "";
        const keys = Object.keys(bucket)
          .filter((k) => k.startsWith(prefix))
          .sort();
        const start = Number(url.searchParams.get("continuation-token")?.replace("page-", "") ?? 0);
        const page = keys.slice(start, start + PAGE);
        const more = start + PAGE < keys.length;
        const contents = page
          .map(
            (k) =>
              `<Contents><Key>${xmlEscape(k)}</Key><ETag>"${sha256(bucket[k][1]).slice(0, 32)}"</ETag><Size>${bucket[k][1].length}</Size></Contents>`,
          )
          .join("");
        return send(
          200,
          "application/xml",
          `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>${bucketName}</Name><KeyCount>${page.length}</KeyCount><IsTruncated>${more}</IsTruncated>${more ? `<NextContinuationToken>page-${start + PAGE}</NextContinuationToken>` : ""}${contents}</ListBucketResult>`,
        );
      }
      const key = rest.map(decodeURIComponent).join("/");
      const object = bucket[key];
      if (!object) return s3Error(404, "NoSuchKey", "The specified key does not exist.");
      return send(200, object[0], object[1]);
    }
    if (service === "kendra") {
      const target = /^AWSKendraFrontendService\.(\w+)$/.exec(req.headers["x-amz-target"] ?? "");
      if (!target || req.headers["content-type"] !== "application/x-amz-json-1.1")
        return json(400, { __type: "UnknownOperationException", message: "bad target" });
      const [status, body] = kendra(target[1], JSON.parse(raw || "{}"));
      return json(status, body, "application/x-amz-json-1.1");
    }
    return json(400, { message: `service ${service} has no routes here` });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}
