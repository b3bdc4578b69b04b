// AWS services stand-in (one server, told apart by the SigV4 scope's service): Bedrock Agent Runtime
// (POST /knowledgebases/{id}/retrieve), SNS's Query API (POST / Action=Publish, XML answers),
// DynamoDB's JSON 1.0 API (X-Amz-Target DynamoDB_20120810.PutItem | Query | GetItem | UpdateItem,
// tables kept in memory) and S3's REST API, path-style (GET /{bucket}?list-type=2, GET
// /{bucket}/{key}). Every request's signature is recomputed here with node:crypto, independently of
// the worker's signer, from the scope's region and service (S3: the path as sent, the
// x-amz-content-sha256 header checked against the body); a wrong one is AWS's 403. The query is
// read as AWS reads it: percent-decoded with a "+" kept as "+", so a space sent as "+" fails (SigV4
// wants %20). Each service refuses what its API reference refuses, in its own error shape:
//   DynamoDB  table names, one type per value, no empty sets, key strings not empty (hash ≤ 2048,
//             range ≤ 1024 bytes), items ≤ 400 KB by AWS's size rules, Limit ≥ 1, ReturnValues,
//             unused expression names/values ({"__type":"com.amazon.coral.validate#ValidationException"})
//   SNS       Message not empty and ≤ 262,144 bytes, Subject rules, FIFO topics need MessageGroupId and
//             MessageDeduplicationId (InvalidParameter)
//   Kendra    IndexId of 36 characters, 1–10 documents, Id 1–2,048, Blob ≤ 50 MB, ContentType; PageSize
//             over 100 gives 100 (the API reference: not refused)
//   Bedrock KB  knowledgeBaseId ([0-9a-zA-Z]{10} or its ARN), numberOfResults 1–100, text ≤ 20,000,
//             overrideSearchType HYBRID | SEMANTIC
// GET /requests?contains=<marker> lists the requests whose body or path holds the marker.
import { createHash, createHmac } from "node:crypto";
import { createServer } from "node:http";
import { BEDROCK_TEST_KEY } from "./bedrock.mjs";

const sha256 = (data) => createHash("sha256").update(data).digest("hex");
const hmac = (key, data) => createHmac("sha256", key).update(data).digest();
const enc = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const SERVICES = new Set(["bedrock", "sns", "dynamodb", "s3", "kendra"]);

/** The query's pairs as AWS reads them: percent-decoded, "+" kept as "+" (not a space); undefined when malformed. */
function rawQuery(search) {
  try {
    return search
      .replace(/^\?/, "")
      .split("&")
      .filter(Boolean)
      .map((p) => (p.includes("=") ? [p.slice(0, p.indexOf("=")), p.slice(p.indexOf("=") + 1)] : [p, ""]).map(decodeURIComponent));
  } catch {
    return undefined;
  }
}

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
  const pairs = rawQuery(url.search);
  if (!pairs) return { error: [400, "InvalidArgument", "The query string is not validly percent-encoded."] };
  const query = pairs
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
    "team docs/plan ü.txt": ["text/plain", "Le plan: départ à neuf heures."],
    "team docs/100% done+ok.txt": ["text/plain", "Done and ok."],
  },
};
const PAGE = 2;
/** An opaque continuation token shaped like S3's (base64: "+", "/", "="), so its encoding in the query matters. */
const tokenOf = (start) => `1+tok/${start}=`;

// ---- DynamoDB: table → item key (JSON of the key attributes) → item -------------------------
const tables = new Map();
const tableOf = (name) => {
  if (!tables.has(name)) tables.set(name, new Map());
  return tables.get(name);
};

const utf8 = (s) => Buffer.byteLength(String(s), "utf8");
const invalid = (message) => [400, { __type: "com.amazon.coral.validate#ValidationException", message }];
const MAX_ITEM_BYTES = 400 * 1024;
/** AWS's message for a request member outside its model's constraint. */
const constraint = (value, at, rule) =>
  `1 validation error detected: Value '${value}' at '${at}' failed to satisfy constraint: Member must ${rule}`;

/** A value's size by AWS's "Item sizes and formats": UTF-8 bytes; list/map 3 bytes + 1 per element (+ a map's names). */
function valueSize(v) {
  if ("S" in v) return utf8(v.S);
  if ("N" in v) return Math.ceil(v.N.replace(/^[-0.]+|[.]/g, "").length / 2) + 1;
  if ("B" in v) return Buffer.from(v.B, "base64").length;
  if ("L" in v) return 3 + v.L.reduce((n, e) => n + 1 + valueSize(e), 0);
  if ("M" in v) return 3 + Object.entries(v.M).reduce((n, [k, e]) => n + 1 + utf8(k) + valueSize(e), 0);
  if ("SS" in v || "NS" in v) return (v.SS ?? v.NS).reduce((n, e) => n + utf8(e), 0);
  return 1;
}
const itemSize = (item) => Object.entries(item).reduce((n, [k, v]) => n + utf8(k) + valueSize(v), 0);

const TYPES = ["S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL"];
const EMPTY_SET = { SS: "An string set  may not be empty", NS: "An number set  may not be empty", BS: "Binary sets should not be empty" };

/** Why DynamoDB refuses an attribute value (not exactly one type, an empty set, a bad number), else undefined. */
function badValue(v) {
  const types = Object.keys(v ?? {});
  if (types.length !== 1 || !TYPES.includes(types[0]))
    return "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes";
  const [t] = types;
  if (EMPTY_SET[t] && !v[t].length) return `One or more parameter values were invalid: ${EMPTY_SET[t]}`;
  if (t === "N" && !/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(v.N)) return "A value provided cannot be converted into a number";
  if (t === "L") return v.L.map(badValue).find(Boolean);
  if (t === "M") return Object.values(v.M).map(badValue).find(Boolean);
  return undefined;
}

/** Why DynamoDB refuses a key: an empty string, a partition key over 2,048 bytes, a sort key over 1,024. */
function badKey(key, hash) {
  for (const [name, v] of Object.entries(key)) {
    const why = badValue(v);
    if (why) return why;
    if (v.S === "")
      return (
        "One or more parameter values are not valid. " +
        `The AttributeValue for a key attribute cannot contain an empty string value. Key: ${name}`
      );
    const bytes = utf8(v.S ?? v.N ?? "");
    if (name === hash && bytes > 2048)
      return "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes";
    if (name !== hash && bytes > 1024)
      return "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes";
  }
  return undefined;
}

/** Names and values given for expressions must each be used by one (DynamoDB refuses the request otherwise). */
function unusedInExpressions(body, ...expressions) {
  const text = expressions.filter(Boolean).join(" ");
  for (const [field, given] of [
    ["ExpressionAttributeNames", body.ExpressionAttributeNames],
    ["ExpressionAttributeValues", body.ExpressionAttributeValues],
  ]) {
    const unused = Object.keys(given ?? {}).filter((k) => !new RegExp(`${k}(?![\\w])`).test(text));
    if (unused.length) return `Value provided in ${field} unused in expressions: keys: {${unused.join(", ")}}`;
  }
  return undefined;
}

const RETURN_VALUES = ["NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"];

function validateDynamo(op, body) {
  const name = String(body.TableName ?? "");
  if (!/^[a-zA-Z0-9_.-]+$/.test(name)) return constraint(name, "tableName", "satisfy regular expression pattern: [a-zA-Z0-9_.-]+");
  if (name.length < 3) return constraint(name, "tableName", "have length greater than or equal to 3");
  if (body.ReturnValues !== undefined && !RETURN_VALUES.includes(body.ReturnValues))
    return constraint(body.ReturnValues, "returnValues", `satisfy enum value set: [${RETURN_VALUES.join(", ")}]`);
  if (op === "PutItem") {
    if (!body.Item?.pk) return "One or more parameter values were invalid: Missing the key pk in the item";
    return (
      badKey({ pk: body.Item.pk, ...(body.Item.sk ? { sk: body.Item.sk } : {}) }, "pk") ??
      Object.values(body.Item).map(badValue).find(Boolean)
    );
  }
  if (op === "Query") {
    if (body.Limit !== undefined && !(Number.isInteger(body.Limit) && body.Limit >= 1))
      return constraint(body.Limit, "limit", "have value greater than or equal to 1");
    return unusedInExpressions(body, body.KeyConditionExpression, body.FilterExpression);
  }
  const key = body.Key ?? {};
  const why = badKey(key, "pk" in key ? "pk" : Object.keys(key)[0]);
  if (why || op !== "UpdateItem") return why;
  return (
    Object.values(body.ExpressionAttributeValues ?? {})
      .map(badValue)
      .find(Boolean) ?? unusedInExpressions(body, body.UpdateExpression, body.ConditionExpression)
  );
}

function dynamo(op, body) {
  const why = validateDynamo(op, body);
  if (why) return invalid(why);
  const name = body.TableName;
  if (name.startsWith("missing"))
    return [400, { __type: "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", message: "Requested resource not found" }];
  const table = tableOf(name);
  if (op === "PutItem") {
    const item = body.Item;
    if (itemSize(item) > MAX_ITEM_BYTES) return invalid("Item size has exceeded the maximum allowed size");
    table.set(JSON.stringify([item.pk, item.sk]), item);
    return [200, {}];
  }
  if (op === "Query") {
    if (body.KeyConditionExpression !== "pk = :pk") return invalid("unsupported key condition");
    const pk = body.ExpressionAttributeValues[":pk"].S;
    const items = [...table.values()].filter((i) => i.pk?.S === pk).sort((a, b) => Number(a.sk.S) - Number(b.sk.S));
    if (body.ScanIndexForward === false) items.reverse();
    const page = items.slice(0, body.Limit ?? items.length);
    return [200, { Items: page, Count: page.length, ScannedCount: page.length }];
  }
  const key = JSON.stringify(body.Key);
  if (op === "GetItem") return [200, table.has(key) ? { Item: table.get(key) } : {}];
  if (op === "UpdateItem") {
    const values = body.ExpressionAttributeValues ?? {};
    const attr = body.ExpressionAttributeNames?.["#m"];
    const item = structuredClone(table.get(key) ?? body.Key);
    // The one condition our memory writes (DynamoDB's ConditionExpression): the list as long as read, the same last text.
    if (body.ConditionExpression !== undefined) {
      const at = /^size\(#m\) = :n AND #m\[(\d+)\]\.#t = :last$/.exec(body.ConditionExpression);
      if (!at) return invalid("unsupported condition");
      const list = item[attr]?.L;
      const last = list?.[Number(at[1])]?.M?.[body.ExpressionAttributeNames["#t"]];
      if (String(list?.length ?? "") !== values[":n"]?.N || JSON.stringify(last) !== JSON.stringify(values[":last"]))
        return [
          400,
          { __type: "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", message: "The conditional request failed" },
        ];
    }
    if (body.UpdateExpression === "SET #m = list_append(if_not_exists(#m, :empty_list), :m)")
      item[attr] = { L: [...(item[attr]?.L ?? values[":empty_list"].L), ...values[":m"].L] };
    else if (body.UpdateExpression === "SET #m = :m") item[attr] = values[":m"];
    else return invalid("unsupported update expression");
    if (itemSize(item) > MAX_ITEM_BYTES) return invalid("Item size to update has exceeded the maximum allowed size");
    table.set(key, item);
    return [200, {}];
  }
  return [400, { __type: "com.amazonaws.dynamodb.v20120810#UnknownOperationException", message: `no ${op}` }];
}

// ---- Kendra: index → documents put with BatchPutDocument ---------------------------------------
const indexes = new Map();

const CONTENT_TYPES = ["PDF", "HTML", "MS_WORD", "PLAIN_TEXT", "PPT", "RTF", "XML", "XSLT", "MS_EXCEL", "CSV", "JSON", "MD"];

/** Why Kendra refuses the request (its API reference: IndexId of 36, 1–10 documents, Id 1–2,048, Blob ≤ 50 MB), else undefined. */
function validateKendra(op, body) {
  const id = String(body.IndexId ?? "");
  if (id.length !== 36) return constraint(id, "indexId", `have length ${id.length < 36 ? "greater" : "less"} than or equal to 36`);
  if (!/^[a-zA-Z0-9][a-zA-Z0-9-]*$/.test(id))
    return constraint(id, "indexId", "satisfy regular expression pattern: [a-zA-Z0-9][a-zA-Z0-9-]*");
  if (op === "Retrieve" && typeof body.QueryText !== "string")
    return "1 validation error detected: Value null at 'queryText' failed to satisfy constraint: Member must not be null";
  if (op !== "BatchPutDocument") return undefined;
  const docs = body.Documents ?? [];
  if (docs.length < 1 || docs.length > 10)
    return constraint("[...]", "documents", `have length ${docs.length < 1 ? "greater than or equal to 1" : "less than or equal to 10"}`);
  for (const [i, d] of docs.entries()) {
    const at = `documents.${i + 1}.member`;
    if (!d.Id || d.Id.length > 2048) return constraint(d.Id, `${at}.id`, "have length between 1 and 2048");
    if (d.ContentType !== undefined && !CONTENT_TYPES.includes(d.ContentType))
      return constraint(d.ContentType, `${at}.contentType`, `satisfy enum value set: [${CONTENT_TYPES.join(", ")}]`);
    if (Buffer.from(d.Blob ?? "", "base64").length > 50 * 1024 * 1024) return `The document ${d.Id} is larger than 50 MB.`;
  }
  return undefined;
}

function kendra(op, body) {
  const why = validateKendra(op, body);
  if (why) return [400, { __type: "com.amazonaws.kendra#ValidationException", Message: why }];
  const id = body.IndexId;
  if (id.startsWith("missing"))
    return [400, { __type: "com.amazonaws.kendra#ResourceNotFoundException", Message: `Index ${id} not found` }];
  if (!indexes.has(id)) indexes.set(id, []);
  const docs = indexes.get(id);
  if (op === "BatchPutDocument") {
    for (const d of body.Documents)
      docs.push({ id: d.Id, title: d.Title, text: Buffer.from(d.Blob, "base64").toString("utf8"), type: d.ContentType });
    return [200, { FailedDocuments: [] }];
  }
  const words = String(body.QueryText)
    .toLowerCase()
    .split(/\W+/)
    .filter((w) => w.length > 3);
  // "If you ask for more than 100 results, only 100 are returned" (Retrieve, Query): capped, not refused.
  const hits = docs.filter((d) => words.some((w) => d.text.toLowerCase().includes(w))).slice(0, Math.min(body.PageSize ?? 10, 100));
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

// ---- Bedrock Agent Runtime Retrieve: its API reference's constraints -------------------------------
function validateRetrieve(id, body) {
  if (!/^[0-9a-zA-Z]{10}$|^arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}:[0-9]{12}:knowledge-base\/[0-9a-zA-Z]{10}$/.test(id))
    return constraint(id, "knowledgeBaseId", "satisfy regular expression pattern: ^[0-9a-zA-Z]{10}$|^arn:aws(-[^:]+)?:bedrock:...");
  const text = body.retrievalQuery?.text;
  if (typeof text === "string" && [...text].length > 20000)
    return constraint("***", "retrievalQuery.text", "have length less than or equal to 20000");
  const v = body.retrievalConfiguration?.vectorSearchConfiguration ?? {};
  const at = "retrievalConfiguration.vectorSearchConfiguration";
  if (v.numberOfResults !== undefined && !(Number.isInteger(v.numberOfResults) && v.numberOfResults >= 1 && v.numberOfResults <= 100))
    return constraint(
      v.numberOfResults,
      `${at}.numberOfResults`,
      `have value ${v.numberOfResults < 1 ? "greater than or equal to 1" : "less than or equal to 100"}`,
    );
  if (v.overrideSearchType !== undefined && !["HYBRID", "SEMANTIC"].includes(v.overrideSearchType))
    return constraint(v.overrideSearchType, `${at}.overrideSearchType`, "satisfy enum value set: [HYBRID, SEMANTIC]");
  return undefined;
}

// ---- SNS Publish: the Publish reference's constraints ------------------------------------------------
function validatePublish(form) {
  const message = form.get("Message");
  if (message === null) return "The request must contain the parameter Message";
  if (!message) return "Invalid parameter: Empty message";
  if (utf8(message) > 262144) return "Invalid parameter: Message too long";
  const subject = form.get("Subject");
  // "UTF-8 text with no line breaks or control characters, and less than 100 characters long"
  if (subject !== null && (!subject || [...subject].length >= 100 || /\p{Cc}/u.test(subject))) return "Invalid parameter: Subject";
  if (/\.fifo$/.test(form.get("TopicArn") ?? "")) {
    if (!form.get("MessageGroupId")) return "Invalid parameter: The MessageGroupId parameter is required for FIFO topics";
    // Our FIFO topics have no ContentBasedDeduplication: each message needs its own id.
    if (!form.get("MessageDeduplicationId"))
      return (
        "Invalid parameter: The topic should either have ContentBasedDeduplication enabled " +
        "or MessageDeduplicationId provided explicitly"
      );
  }
  for (const field of ["MessageGroupId", "MessageDeduplicationId"]) {
    const v = form.get(field);
    if (v !== null && !/^[\x21-\x7e]{1,128}$/.test(v)) return `Invalid parameter: ${field}`;
  }
  return undefined;
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
      const why = validateRetrieve(id, body);
      if (why) {
        res.setHeader("x-amzn-errortype", "ValidationException:http://internal.amazon.com/coral/com.amazon.coral.validate/");
        return json(400, { message: why });
      }
      if (id === "KBMISSING0") {
        res.setHeader("x-amzn-errortype", "ResourceNotFoundException:http://internal.amazon.com/coral/com.amazon.bedrock/");
        return json(404, { message: `Knowledge base ${id} does not exist` });
      }
      if (id === "KBBROKEN00") return json(500, { message: "internal failure" });
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
      const why = validatePublish(form);
      if (why) return xmlError(400, why.startsWith("The request") ? "MissingParameter" : "InvalidParameter", why);
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
        const q = new Map(rawQuery(url.search));
        if (q.get("list-type") !== "2") return s3Error(400, "InvalidArgument", "list-type=2 expected");
        const prefix = q.get("prefix") ?? "";
        const keys = Object.keys(bucket)
          .filter((k) => k.startsWith(prefix))
          .sort();
        const token = q.get("continuation-token");
        const start = token === undefined ? 0 : Number(/^1\+tok\/(\d+)=$/.exec(token)?.[1] ?? Number.NaN);
        if (Number.isNaN(start)) return s3Error(400, "InvalidArgument", "The continuation token provided is incorrect");
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
          `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>${bucketName}</Name><KeyCount>${page.length}</KeyCount><IsTruncated>${more}</IsTruncated>${more ? `<NextContinuationToken>${tokenOf(start + PAGE)}</NextContinuationToken>` : ""}${contents}</ListBucketResult>`,
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
