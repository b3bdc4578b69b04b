// Flowise's stripeAgentTool (credential stripeApi: stripeApiToken), the tools of @stripe/agent-toolkit
// 0.1.21 built natively over Stripe's REST API: {STRIPE_API_BASE_URL|https://api.stripe.com}/v1/…,
// the secret key as a bearer token, bodies form-encoded with Stripe's bracket notation, the API
// version the toolkit's SDK (stripe 17.7) pins. Each node input (paymentLinks, products, prices,
// balance, invoiceItems, invoices, customers) grants create / read / update on its resource; a tool
// is offered when every permission it needs is granted, as the toolkit's isToolAllowed decides.
// Answers go to the model as the toolkit makes them (JSON text, trimmed to the fields it keeps). A
// failure is the toolkit's own "Failed to create customer" JSON string, with Stripe's message after
// it (the toolkit drops it; the key never appears).
import { DynamicStructuredTool } from "@langchain/core/tools";
import { z } from "zod";
import { fail } from "../../errors";
import { checkEndpoint } from "../../lib/outbound";
import { errorMessage } from "../../lib/error-message";
import { redact } from "../../lib/redact";
import { RunAborted } from "../../lib/run-control";
import { credentialOf } from "../../providers/config";
import { str } from "../core/inputs";
import type { RunContext } from "../core/ports";
import { chosenActions } from "./oauth2/api";
import { ToolCallError, baseUrlOf, callService } from "./service";
import type { BuiltTool, ToolDeps } from "./types";

const API_VERSION = "2025-02-24.acacia";
const RESOURCES = ["paymentLinks", "products", "prices", "balance", "invoiceItems", "invoices", "customers"] as const;
type Resource = (typeof RESOURCES)[number];
type Obj = Record<string, unknown>;
type Call = (method: "GET" | "POST", path: string, params?: Obj) => Promise<Obj>;

interface StripeAction {
  name: string;
  /** The resource and permission the toolkit's tool needs. */
  needs: [Resource, "create" | "read" | "update"];
  description: string;
  schema: z.ZodObject<z.ZodRawShape>;
  run(args: Obj, call: Call): Promise<unknown>;
}

const LIMIT = "A limit on the number of objects to be returned. Limit can range between 1 and 100, and the default is 10.";
const limit = () => z.number().int().min(1).max(100).optional().describe(LIMIT);
const list = (path: string) => async (args: Obj, call: Call) => (await call("GET", path, args)).data;
const create = (path: string) => (args: Obj, call: Call) => call("POST", path, args);
const invoiceSummary = (i: Obj) => ({ id: i.id, url: i.hosted_invoice_url, customer: i.customer, status: i.status });
const prompt = (what: string, args: string) => `\nThis tool will ${what}\n\n${args}\n`;

// The toolkit's tools in its order, with its prompts and parameters.
const ACTIONS: StripeAction[] = [
  {
    name: "create_customer",
    needs: ["customers", "create"],
    description: prompt(
      "create a customer in Stripe.",
      "It takes two arguments:\n- name (str): The name of the customer.\n- email (str, optional): The email of the customer.",
    ),
    schema: z.object({
      name: z.string().describe("The name of the customer"),
      email: z.string().email().optional().describe("The email of the customer"),
    }),
    run: async (args, call) => ({ id: (await call("POST", "/v1/customers", args)).id }),
  },
  {
    name: "list_customers",
    needs: ["customers", "read"],
    description: prompt("fetch a list of Customers from Stripe.", "It takes no input."),
    schema: z.object({
      limit: limit(),
      email: z
        .string()
        .optional()
        .describe("A case-sensitive filter on the list based on the customer's email field. The value must be a string."),
    }),
    run: async (args, call) => ((await call("GET", "/v1/customers", args)).data as Obj[]).map((c) => ({ id: c.id })),
  },
  {
    name: "create_product",
    needs: ["products", "create"],
    description: prompt(
      "create a product in Stripe.",
      "It takes two arguments:\n- name (str): The name of the product.\n- description (str, optional): The description of the product.",
    ),
    schema: z.object({
      name: z.string().describe("The name of the product."),
      description: z.string().optional().describe("The description of the product."),
    }),
    run: create("/v1/products"),
  },
  {
    name: "list_products",
    needs: ["products", "read"],
    description: prompt(
      "fetch a list of Products from Stripe.",
      "It takes one optional argument:\n- limit (int, optional): The number of products to return.",
    ),
    schema: z.object({ limit: limit() }),
    run: list("/v1/products"),
  },
  {
    name: "create_price",
    needs: ["prices", "create"],
    description: prompt(
      "create a price in Stripe. If a product has not already been specified, a product should be created first.",
      "It takes three arguments:\n- product (str): The ID of the product to create the price for.\n" +
        "- unit_amount (int): The unit amount of the price in cents.\n- currency (str): The currency of the price.",
    ),
    schema: z.object({
      product: z.string().describe("The ID of the product to create the price for."),
      unit_amount: z.number().int().describe("The unit amount of the price in cents."),
      currency: z.string().describe("The currency of the price."),
    }),
    run: create("/v1/prices"),
  },
  {
    name: "list_prices",
    needs: ["prices", "read"],
    description: prompt(
      "fetch a list of Prices from Stripe.",
      "It takes two arguments.\n- product (str, optional): The ID of the product to list prices for.\n" +
        "- limit (int, optional): The number of prices to return.",
    ),
    schema: z.object({ product: z.string().optional().describe("The ID of the product to list prices for."), limit: limit() }),
    run: list("/v1/prices"),
  },
  {
    name: "create_payment_link",
    needs: ["paymentLinks", "create"],
    description: prompt(
      "create a payment link in Stripe.",
      "It takes two arguments:\n- price (str): The ID of the price to create the payment link for.\n" +
        "- quantity (int): The quantity of the product to include in the payment link.",
    ),
    schema: z.object({
      price: z.string().describe("The ID of the price to create the payment link for."),
      quantity: z.number().int().describe("The quantity of the product to include."),
    }),
    run: async (args, call) => {
      const link = await call("POST", "/v1/payment_links", { line_items: [args] });
      return { id: link.id, url: link.url };
    },
  },
  {
    name: "create_invoice",
    needs: ["invoices", "create"],
    description: prompt(
      "create an invoice in Stripe.",
      "It takes one argument:\n- customer (str): The ID of the customer to create the invoice for.",
    ),
    schema: z.object({
      customer: z.string().describe("The ID of the customer to create the invoice for."),
      days_until_due: z.number().int().optional().describe("The number of days until the invoice is due."),
    }),
    // Stripe takes days_until_due only on a send_invoice invoice (else a 400 on every such call): the toolkit's
    // later fix (agent-toolkit #117); without it, Stripe's default collection as 0.1.21 sent it.
    run: async (args, call) => {
      const params = args.days_until_due === undefined ? args : { ...args, collection_method: "send_invoice" };
      return invoiceSummary(await call("POST", "/v1/invoices", params));
    },
  },
  {
    name: "create_invoice_item",
    needs: ["invoiceItems", "create"],
    description: prompt(
      "create an invoice item in Stripe.",
      "It takes two arguments:\n- customer (str): The ID of the customer to create the invoice item for.\n" +
        "- price (str): The ID of the price to create the invoice item for.",
    ),
    schema: z.object({
      customer: z.string().describe("The ID of the customer to create the invoice item for."),
      price: z.string().describe("The ID of the price for the item."),
      invoice: z.string().describe("The ID of the invoice to create the item for."),
    }),
    run: async (args, call) => {
      const item = await call("POST", "/v1/invoiceitems", args);
      return { id: item.id, invoice: item.invoice };
    },
  },
  {
    name: "finalize_invoice",
    needs: ["invoices", "update"],
    description: prompt("finalize an invoice in Stripe.", "It takes one argument:\n- invoice (str): The ID of the invoice to finalize."),
    schema: z.object({ invoice: z.string().describe("The ID of the invoice to finalize.") }),
    run: async (args, call) => invoiceSummary(await call("POST", `/v1/invoices/${encodeURIComponent(String(args.invoice))}/finalize`)),
  },
  {
    name: "retrieve_balance",
    needs: ["balance", "read"],
    description: "\nThis tool will retrieve the balance from Stripe. It takes no input.\n",
    schema: z.object({}),
    run: (args, call) => call("GET", "/v1/balance", args),
  },
];

/** Stripe's form encoding: nested objects and arrays as `a[b]`, `a[0][c]` (brackets left readable, as its SDK sends them). */
function formOf(value: unknown, prefix = "", out = new URLSearchParams()): URLSearchParams {
  if (value === undefined || value === null) return out;
  if (Array.isArray(value)) value.forEach((v, i) => formOf(v, `${prefix}[${i}]`, out));
  else if (typeof value === "object") for (const [k, v] of Object.entries(value)) formOf(v, prefix ? `${prefix}[${k}]` : k, out);
  else out.append(prefix, String(value));
  return out;
}
const encoded = (params: Obj) => formOf(params).toString().replace(/%5B/g, "[").replace(/%5D/g, "]");

function stripeClient(base: string, key: string, ctx: RunContext): Call {
  return async (method, path, params = {}) => {
    const form = encoded(params);
    const url = `${base}${path}${method === "GET" && form ? `?${form}` : ""}`;
    const headers: Record<string, string> = { Authorization: `Bearer ${key}`, "Stripe-Version": API_VERSION };
    if (method === "POST") headers["Content-Type"] = "application/x-www-form-urlencoded";
    const init: RequestInit = { method, headers, body: method === "POST" ? form : undefined };
    const res = await callService({ service: "Stripe", field: "STRIPE_API_BASE_URL", url, init, secrets: [key] }, ctx);
    let body: Obj | undefined;
    try {
      body = JSON.parse(res.text) as Obj;
    } catch {
      body = undefined;
    }
    if (!res.ok || !body) {
      const error = (body?.error ?? {}) as Obj;
      const detail = typeof error.message === "string" ? error.message : res.text.slice(0, 300);
      throw new ToolCallError(redact(`Stripe answered ${res.status}${detail ? `: ${detail}` : ""}`, [key]));
    }
    return body;
  };
}

export async function stripeAgentTools(inputs: Record<string, unknown>, { ctx, label }: ToolDeps): Promise<BuiltTool> {
  const granted = new Set(RESOURCES.flatMap((r) => chosenActions(inputs[r]).map((p) => `${r}.${p}`)));
  const actions = ACTIONS.filter((a) => granted.has(a.needs.join(".")));
  if (!actions.length)
    throw fail(
      "INVALID_FLOW",
      `${label}: grant an action that has a tool: Customers create/read, Products create/read, Prices create/read, ` +
        "Payment Links create, Invoices create/update, Invoice Items create, Balance read",
    );
  const credential = await credentialOf(inputs, { getCredential: ctx.getCredential });
  const key = str(credential.stripeApiToken) ?? str(inputs.stripeApiToken);
  if (!key) throw fail("MISSING_CREDENTIAL", `${label} needs a stripeApi credential with its Stripe API Token (a secret key)`);
  const base = baseUrlOf(ctx.runtime.providers.STRIPE_API_BASE_URL, "https://api.stripe.com");
  checkEndpoint(base, "STRIPE_API_BASE_URL", ctx.runtime.providers);
  const call = stripeClient(base, key, ctx);
  return actions.map(
    (action) =>
      new DynamicStructuredTool({
        name: action.name,
        description: action.description,
        schema: action.schema,
        func: async (args: Obj) => {
          try {
            return JSON.stringify(await action.run(args, call));
          } catch (err) {
            if (err instanceof RunAborted) throw err;
            // The toolkit's own text ("Failed to create customer"), then Stripe's (or the call's) message.
            return JSON.stringify(`Failed to ${action.name.replace(/_/g, " ")}: ${redact(errorMessage(err), [key])}`);
          }
        },
      }),
  );
}
