// stripeAgentTool (Flowise's StripeTool over @stripe/agent-toolkit 0.1.21, here native over Stripe's
// REST API): a Tool Agent chatflow saved and run through POST /prediction, the OpenAI-compatible
// stand-in model calling the tools (`[call NAME {json}]`) against the Stripe stand-in
// (test/standin/stripe.mjs, STRIPE_API_BASE_URL): what Stripe received (paths, form bodies in its
// bracket notation, the bearer key, the API version) and what the model got back (the toolkit's JSON
// text). The node's permission inputs choose the tools as the toolkit does; a refused key and a
// Stripe error are the toolkit's "Failed to …" text with Stripe's message and never the key; a
// private STRIPE_API_BASE_URL, no action and no credential are 400s.
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { ZodTypeAny } from "zod";
import { afterEach, describe, expect, inject, it } from "vitest";
import { buildTool } from "../../src/engine/tools/registry";
import { call, expectError, json } from "../helpers";
import { setVars } from "../security/helpers";
import { callOf, toolAgentFlow } from "./agents-flows";
import { credential, makeCtx, marker, runtimeWith } from "./helpers";

const stripe = () => inject("stripeUrl");

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

type Received = { method: string; path: string; query: Record<string, string>; headers: Record<string, string>; form: any };
const received = async (contains: string): Promise<Received[]> =>
  (await fetch(`${stripe()}/requests?contains=${encodeURIComponent(contains)}`)).json();

const ALL = JSON.stringify(["create", "update", "read"]);
const EVERY = Object.fromEntries(
  ["paymentLinks", "products", "prices", "balance", "invoiceItems", "invoices", "customers"].map((k) => [k, ALL]),
);

/** A Tool Agent chatflow with a stripeAgentTool node (inputs as Flowise stores them) and a stripeApi credential. */
async function saveWith(inputs: Record<string, unknown>, key?: string): Promise<string> {
  const openai = await credential("openAIApi", { openAIApiKey: "sk-stripe-tools" });
  const flow = JSON.parse(
    toolAgentFlow({
      credential: openai,
      calculator: false,
      memory: false,
      nodes: [{ id: "stripeAgentTool_0", name: "stripeAgentTool", inputs }],
    }),
  );
  if (key) {
    const cred = await credential("stripeApi", { stripeApiToken: key });
    flow.nodes.find((n: { id: string }) => n.id === "stripeAgentTool_0").data.credential = cred;
  }
  return (await json("POST", "/chatflows", { body: { name: "stripe tools", flowData: JSON.stringify(flow) } })).id;
}

const predict = (id: string, question: string) => call("POST", `/prediction/${id}`, { body: { question } });
const answerOf = async (res: Promise<Response>) => (await (await res).json()) as { text: string };

describe("stripeAgentTool in a Tool Agent through POST /prediction", () => {
  it("customer, product, price, payment link, invoice, item, finalize, lists and balance: Stripe's wire, the toolkit's answers", async () => {
    restore = setVars({ STRIPE_API_BASE_URL: stripe() });
    const m = marker();
    const key = `sk_test_ok_${m}`;
    const id = await saveWith(EVERY, key);
    const calls = [
      callOf("create_customer", { name: `Ada ${m}`, email: `ada-${m}@example.com` }),
      callOf("create_product", { name: "Gadget", description: "A fine gadget" }),
      callOf("create_price", { product: "prod_0002", unit_amount: 1999, currency: "usd" }),
      callOf("create_payment_link", { price: "price_0003", quantity: 2 }),
      callOf("create_invoice", { customer: "cus_0001", days_until_due: 30 }),
      callOf("create_invoice_item", { customer: "cus_0001", price: "price_0003", invoice: "in_0005" }),
      callOf("finalize_invoice", { invoice: "in_0005" }),
      callOf("list_customers", { email: `ada-${m}@example.com`, limit: 5 }),
      callOf("list_prices", { product: "prod_0002" }),
      callOf("retrieve_balance", {}),
    ];
    const res = await predict(id, `Bill Ada ${calls.join(" ")}`);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { text: string; usedTools: { tool: string }[] };
    const price = { id: "price_0003", object: "price", livemode: false, created: 1_700_000_003 };
    const results = [
      { id: "cus_0001" },
      {
        id: "prod_0002",
        object: "product",
        livemode: false,
        created: 1_700_000_002,
        name: "Gadget",
        description: "A fine gadget",
        active: true,
      },
      { ...price, product: "prod_0002", unit_amount: 1999, currency: "usd", type: "one_time" },
      { id: "plink_0004", url: "https://buy.stripe.com/test_plink_0004" },
      { id: "in_0005", url: null, customer: "cus_0001", status: "draft" },
      { id: "ii_0006", invoice: "in_0005" },
      { id: "in_0005", url: "https://invoice.stripe.com/i/test_in_0005", customer: "cus_0001", status: "open" },
      [{ id: "cus_0001" }],
      [{ ...price, product: "prod_0002", unit_amount: 1999, currency: "usd", type: "one_time" }],
    ].map((r) => JSON.stringify(r));
    const balance = JSON.parse(answer.text.split(" | ").at(-1) ?? "null");
    expect(balance).toMatchObject({ object: "balance", available: [{ amount: 12345, currency: "usd" }] });
    expect(answer.text).toBe(`tools said: ${[...results, JSON.stringify(balance)].join(" | ")}`);
    expect(answer.usedTools.map((t: { tool: string }) => t.tool)).toEqual(calls.map((c) => c.split(" ")[1]));

    const got = await received(key);
    expect(got.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v1/customers",
      "POST /v1/products",
      "POST /v1/prices",
      "POST /v1/payment_links",
      "POST /v1/invoices",
      "POST /v1/invoiceitems",
      "POST /v1/invoices/in_0005/finalize",
      "GET /v1/customers",
      "GET /v1/prices",
      "GET /v1/balance",
    ]);
    for (const r of got) {
      expect(r.headers.authorization).toBe(`Bearer ${key}`);
      expect(r.headers["stripe-version"]).toBe("2025-02-24.acacia");
      if (r.method === "POST") expect(r.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    }
    expect(got[0].form).toEqual({ name: `Ada ${m}`, email: `ada-${m}@example.com` });
    expect(got[2].form).toEqual({ product: "prod_0002", unit_amount: "1999", currency: "usd" });
    expect(got[3].form).toEqual({ line_items: [{ price: "price_0003", quantity: "2" }] });
    expect(got[4].form).toEqual({ customer: "cus_0001", days_until_due: "30", collection_method: "send_invoice" });
    expect(got[6].form).toEqual({});
    expect(got[7].query).toEqual({ email: `ada-${m}@example.com`, limit: "5" });
    expect(got[9].query).toEqual({});
  });

  it("a refused key and a Stripe error: the toolkit's Failed to … with Stripe's message, never the key", async () => {
    restore = setVars({ STRIPE_API_BASE_URL: stripe() });
    const m = marker();
    const bad = `sk_live_refused_${m}`;
    const id = await saveWith({ customers: '["create"]' }, bad);
    const res = await answerOf(predict(id, `Add ${callOf("create_customer", { name: m })}`));
    expect(res.text).toBe(`tools said: "Failed to create customer: Stripe answered 401: Invalid API Key provided: [redacted]"`);
    expect(JSON.stringify(res)).not.toContain(bad);
    expect((await received(bad))[0]).toMatchObject({ method: "POST", path: "/v1/customers", form: { name: m } });

    const ok = await saveWith({ invoices: '["create"]' }, `sk_test_ok_${m}`);
    const missing = await answerOf(predict(ok, `Bill ${callOf("create_invoice", { customer: `cus_${m}` })}`));
    expect(missing.text).toBe(`tools said: "Failed to create invoice: Stripe answered 404: No such customer: 'cus_${m}'"`);
  });

  it("a private STRIPE_API_BASE_URL, no action granted and no credential are 400s; nothing is sent", async () => {
    restore = setVars({ STRIPE_API_BASE_URL: "http://10.9.9.9" });
    const m = marker();
    const id = await saveWith({ balance: '["read"]' }, `sk_test_ok_${m}`);
    const err = await expectError(await predict(id, `x ${callOf("retrieve_balance", {})}`), 400);
    expect(err.message).toMatch(/^STRIPE_API_BASE_URL refused by the outbound policy: 10\.9\.9\.9 is a private address/);
    expect(err.message).not.toContain(m);
    restore();
    restore = setVars({ STRIPE_API_BASE_URL: stripe() });
    const none = await saveWith({ balance: '["create","update"]', products: "[]" }, `sk_test_ok_${m}`);
    expect((await expectError(await predict(none, "x"), 400)).message).toMatch(/grant an action that has a tool/);
    const noKey = await saveWith({ balance: '["read"]' });
    expect((await expectError(await predict(noKey, "x"), 400)).message).toMatch(/needs a stripeApi credential/);
    expect(await received(m)).toEqual([]);
  });
});

describe("stripeAgentTool's tools as the toolkit offers them", () => {
  it("each tool needs every permission of its resource: names, prompts and parameters as the toolkit's", async () => {
    const cred = await credential("stripeApi", { stripeApiToken: "sk_test_ok_schema" });
    const ctx = makeCtx("q", { runtime: runtimeWith({ STRIPE_API_BASE_URL: stripe() }) });
    const inputs = { credential: cred, customers: '["read"]', invoices: '["update"]', products: "create,update", prices: '["update"]' };
    const tools = (await buildTool("stripeAgentTool", inputs, { ctx, label: "Stripe" })) as StructuredToolInterface[];
    expect(tools.map((t) => t.name)).toEqual(["list_customers", "create_product", "finalize_invoice"]);
    expect(tools[1].description).toBe(
      "\nThis tool will create a product in Stripe.\n\nIt takes two arguments:\n- name (str): The name of the product.\n" +
        "- description (str, optional): The description of the product.\n",
    );
    const shape = (t: StructuredToolInterface) => (t.schema as unknown as { shape: Record<string, ZodTypeAny> }).shape;
    const limit = shape(tools[0]).limit;
    expect([0, 1, 100, 101, 2.5, undefined].map((v) => limit.safeParse(v).success)).toEqual([false, true, true, false, false, true]);
    expect(shape(tools[0]).email.description).toMatch(/^A case-sensitive filter on the list based on the customer's email field/);
    expect(Object.keys(shape(tools[2]))).toEqual(["invoice"]);
    expect(shape(tools[2]).invoice.safeParse(undefined).success).toBe(false);
    expect(await tools[0].invoke({})).toBe("[]");
  });
});

describe("stripeAgentTool against Stripe's documented rules", () => {
  it("create_invoice: days_until_due goes with collection_method=send_invoice (else Stripe's 400); without it, the default", async () => {
    const m = marker();
    const key = `sk_test_ok_inv_${m}`;
    const cred = await credential("stripeApi", { stripeApiToken: key });
    const ctx = makeCtx("q", { runtime: runtimeWith({ STRIPE_API_BASE_URL: stripe() }) });
    const inputs = { credential: cred, customers: '["create"]', invoices: '["create"]' };
    const tools = (await buildTool("stripeAgentTool", inputs, { ctx, label: "Stripe" })) as StructuredToolInterface[];
    const [createCustomer, createInvoice] = tools;
    expect(await createCustomer.invoke({ name: "Zoë Ünal" })).toBe('{"id":"cus_0001"}');
    const due = JSON.parse(await createInvoice.invoke({ customer: "cus_0001", days_until_due: 14 }));
    expect(due).toEqual({ id: "in_0002", url: null, customer: "cus_0001", status: "draft" });
    expect(JSON.parse(await createInvoice.invoke({ customer: "cus_0001" }))).toMatchObject({ id: "in_0003", status: "draft" });
    const sent = (await received(key)).filter((r) => r.path === "/v1/invoices").map((r) => r.form);
    expect(sent).toEqual([{ customer: "cus_0001", days_until_due: "14", collection_method: "send_invoice" }, { customer: "cus_0001" }]);
  });
});
