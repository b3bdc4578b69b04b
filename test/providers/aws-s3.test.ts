// Flowise's S3 and s3Directory loaders against the S3 stand-in (test/standin/aws-services.mjs, which
// recomputes each request's SigV4 signature with S3's rules: the path signed as sent, the payload
// hash in x-amz-content-sha256): GetObject read by our loaders by extension, ListObjectsV2 followed
// page by page, path-style addressing on AWS_S3_BASE_URL and on s3Directory's serverUrl, Flowise's
// metadata inputs, and the failures (no such key → 502 with S3's message, wrong secret → 502
// without it, bad bucket name → 400, a private serverUrl → refused).
import { describe, expect, inject, it } from "vitest";
import { workLimits } from "../../src/lib/limits";
import { signRequest } from "../../src/providers/aws/sigv4";
import { loadDocuments } from "../../src/providers/loaders/registry";

const aws = () => inject("awsServicesUrl");
const CREDS: Record<string, Record<string, unknown>> = {
  good: { awsKey: "AKIAEDGEFLOWTEST", awsSecret: "edgeflow/standin+Secret1" },
  wrong: { awsKey: "AKIAEDGEFLOWTEST", awsSecret: "wrong/S3-secret-never-shown" },
};

const load = (name: string, config: Record<string, unknown>, services: Record<string, string> = { AWS_S3_BASE_URL: aws() }) =>
  loadDocuments(name, {
    config: { credential: "good", region: "eu-west-1", ...config },
    files: [],
    outbound: { OUTBOUND_ALLOW: "127.0.0.1" },
    maxBytes: 1 << 20,
    limits: workLimits({}),
    getCredential: async (id) => CREDS[id] ?? {},
    services: { ENVIRONMENT: "test", ...services },
  });
const failure = async (p: Promise<unknown>) =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status: number; message: string };
type Received = { method: string; path: string; headers: Record<string, string> };
const received = async (m: string): Promise<Received[]> => (await fetch(`${aws()}/requests?contains=${encodeURIComponent(m)}`)).json();

describe("SigV4 with S3's rules", () => {
  it("signs AWS's published GetObject example (examplebucket/test.txt, Range) to its signature", async () => {
    const headers = await signRequest({
      method: "GET",
      url: "https://examplebucket.s3.amazonaws.com/test.txt",
      headers: { range: "bytes=0-9" },
      region: "us-east-1",
      service: "s3",
      credentials: { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" },
      date: new Date("2013-05-24T00:00:00Z"),
      s3: true,
    });
    expect(headers["x-amz-content-sha256"]).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(headers.authorization).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, " +
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, " +
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41",
    );
  });
});

describe("S3 (one object)", () => {
  it("GetObject, path-style on AWS_S3_BASE_URL, signed for s3 with the payload hash; read by the loader for its kind", async () => {
    const docs = await load("S3", { bucketName: "edgeflow-docs", keyName: "notes/table.csv", metadata: '{"team":"ops"}' });
    expect(docs.map((d) => d.pageContent)).toEqual(["city: Paris\nriver: Seine", "city: Rome\nriver: Tiber"]);
    expect(docs[0].metadata).toMatchObject({ source: "s3://edgeflow-docs/notes/table.csv", bucketName: "edgeflow-docs", team: "ops" });
    const [req] = (await received("/edgeflow-docs/notes/table.csv")).slice(-1);
    expect(req.method).toBe("GET");
    expect(req.headers.authorization).toMatch(/Credential=AKIAEDGEFLOWTEST\/\d{8}\/eu-west-1\/s3\/aws4_request/);
    expect(req.headers["x-amz-content-sha256"]).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("no such key is a 502 with S3's message; a wrong secret a 502 without it; a bad bucket name or no key a 400", async () => {
    const missing = await failure(load("S3", { bucketName: "edgeflow-docs", keyName: "nope.txt" }));
    expect(missing.status).toBe(502);
    expect(missing.message).toBe("AWS S3 answered 404: NoSuchKey: The specified key does not exist.");
    const wrong = await failure(load("S3", { bucketName: "edgeflow-docs", keyName: "notes/alpha.txt", credential: "wrong" }));
    expect(wrong.status).toBe(502);
    expect(wrong.message).toMatch(/403: SignatureDoesNotMatch/);
    expect(wrong.message).not.toContain(CREDS.wrong.awsSecret);
    expect((await failure(load("S3", { bucketName: "Bad_Bucket", keyName: "a" }))).status).toBe(400);
    expect((await failure(load("S3", { bucketName: "edgeflow-docs" }))).status).toBe(400);
    expect((await failure(load("S3", { bucketName: "edgeflow-docs", keyName: "a", credential: undefined }))).status).toBe(400);
  });
});

describe("s3Directory", () => {
  it("lists every page under the prefix (ListObjectsV2) and reads each object; folders skipped, keys with spaces and & fetched", async () => {
    const docs = await load("s3Directory", { bucketName: "edgeflow-docs", prefix: "notes/", omitMetadataKeys: "fileId" });
    const bySource = Object.fromEntries(docs.map((d) => [String(d.metadata.source), d.pageContent]));
    expect(Object.keys(bySource).sort()).toEqual([
      "s3://edgeflow-docs/notes/alpha.txt",
      "s3://edgeflow-docs/notes/beta.md",
      "s3://edgeflow-docs/notes/sub/gamma & co.json",
      "s3://edgeflow-docs/notes/table.csv",
    ]);
    expect(bySource["s3://edgeflow-docs/notes/alpha.txt"]).toBe("Alpha notes: the ferry leaves at nine.");
    expect(bySource["s3://edgeflow-docs/notes/sub/gamma & co.json"]).toContain("nested object");
    expect(docs.every((d) => d.metadata.fileId === undefined)).toBe(true);
    const lists = (await received("list-type=2")).filter((r) => r.path.includes("prefix=notes%2F"));
    // S3's tokens are base64 ("+", "/", "="): sent percent-encoded, as SigV4 signs them
    expect(lists.at(-1)!.path).toBe("/edgeflow-docs?list-type=2&prefix=notes%2F&continuation-token=1%2Btok%2F4%3D");
    expect((await received("/edgeflow-docs/notes/sub/gamma%20%26%20co.json")).length).toBeGreaterThan(0);
  });

  it("a prefix with a space is sent as %20 (SigV4's encoding; AWS reads '+' as '+'); unicode, % and + keys fetched", async () => {
    const docs = await load("s3Directory", { bucketName: "edgeflow-docs", prefix: "team docs/" });
    expect(Object.fromEntries(docs.map((d) => [d.metadata.source, d.pageContent]))).toEqual({
      "s3://edgeflow-docs/team docs/100% done+ok.txt": "Done and ok.",
      "s3://edgeflow-docs/team docs/plan ü.txt": "Le plan: départ à neuf heures.",
    });
    const [list] = (await received("list-type=2")).filter((r) => r.path.includes("team")).slice(-1);
    expect(list.path).toBe("/edgeflow-docs?list-type=2&prefix=team%20docs%2F");
    expect((await received("/edgeflow-docs/team%20docs/plan%20%C3%BC.txt")).length).toBeGreaterThan(0);
    expect((await received("/edgeflow-docs/team%20docs/100%25%20done%2Bok.txt")).length).toBeGreaterThan(0);
  });

  it("serverUrl is a custom endpoint, path-style and under the outbound policy; a missing bucket is a 502", async () => {
    const docs = await load("s3Directory", { bucketName: "edgeflow-docs", prefix: "other/", serverUrl: aws() }, {});
    expect(docs.map((d) => d.pageContent)).toEqual(["not under the prefix"]);
    const refused = await failure(load("s3Directory", { bucketName: "edgeflow-docs", serverUrl: "http://10.0.0.5:9000" }, {}));
    expect(refused.status).toBe(400);
    expect(refused.message).toMatch(/^s3Directory serverUrl refused by the outbound policy/);
    const none = await failure(load("s3Directory", { bucketName: "no-such-bucket" }));
    expect(none.status).toBe(502);
    expect(none.message).toContain("NoSuchBucket");
  });
});
