// Stripe REST API stand-in (Node, vitest globalSetup) for stripeAgentTool. Speaks /v1/… as
// https://api.stripe.com does: `Authorization: Bearer sk_test_…` (any key starting `sk_test_ok_`
// is accepted, each key its own account: objects stored per key), POST bodies form-encoded with
// Stripe's bracket notation (`line_items[0][price]=…`), GET parameters in the query; answers Stripe's
// objects and lists ({object: "list", data, has_more}); errors as Stripe's {error: {type, code?,
// message, param?}} with its statuses: 401 for another key (this stand-in echoes the whole key in
// the message, to check it is redacted), 400 for an unknown or missing parameter, 404 for an
// unknown object ("No such customer: 'cus_x'") or path. Strict as Stripe's API reference: list `limit` 1–100,
// `starting_after` paging with has_more; amounts and quantities whole numbers; metadata at most 50 keys, keys of
// 40 characters, values of 500; an invoice's days_until_due only with collection_method=send_invoice (which needs it).
//   POST /v1/customers {name, email}             GET /v1/customers?limit&email
//   POST /v1/products {name, description}        GET /v1/products?limit
//   POST /v1/prices {product, unit_amount, currency}   GET /v1/prices?product&limit
//   POST /v1/payment_links {line_items[i][price], line_items[i][quantity]}
//   POST /v1/invoices {customer, days_until_due}  POST /v1/invoices/{id}/finalize
//   POST /v1/invoiceitems {customer, price, invoice}   GET /v1/balance
// GET /requests?contains=X lists what was received whose path, body or Authorization holds X:
// {method, path, query, headers, form (the body parsed into nested objects), raw}.
import { createServer } from "node:http";

const KEY = /^sk_test_ok_[A-Za-z0-9_-]+$/;

/** `a[b][0]=c` pairs → {a: {b: ["c"]}}: Stripe's bracket notation read back. */
function parseForm(params) {
  const root = {};
  for (const [name, value] of params) {
    const path = name.split(/\[|\]\[|\]$/).filter((p, i) => i === 0 || p !== "");
    let at = root;
    path.forEach((part, i) => {
      if (i === path.length - 1) at[part] = value;
      else at = at[part] ??= /^\d+$/.test(path[i + 1]) ? [] : {};
    });
  }
  return root;
}

const error = (status, message, extra = {}) => ({ status, body: { error: { type: "invalid_request_error", message, ...extra } } });
const missing = (kind, id, param) => error(404, `No such ${kind}: '${id}'`, { code: "resource_missing", param });

const ALLOWED = {
  customers: ["name", "email", "description", "metadata"],
  products: ["name", "description", "metadata"],
  prices: ["product", "unit_amount", "currency"],
  payment_links: ["line_items"],
  invoices: ["customer", "days_until_due", "collection_method"],
  invoiceitems: ["customer", "price", "invoice"],
};
const PREFIX = { customers: "cus", products: "prod", prices: "price", payment_links: "plink", invoices: "in", invoiceitems: "ii" };
const OBJECT = {
  customers: "customer",
  products: "product",
  prices: "price",
  payment_links: "payment_link",
  invoices: "invoice",
  invoiceitems: "invoiceitem",
};

function makeAccount() {
  return { n: 0, customers: [], products: [], prices: [], payment_links: [], invoices: [], invoiceitems: [] };
}

/**
 * An invoice's collection: charge_automatically (the default) or send_invoice; days_until_due is valid only with
 * send_invoice (Stripe's API reference), and send_invoice needs days_until_due (or a due_date).
 */
function validateCollection(params) {
  const method = params.collection_method ?? "charge_automatically";
  if (!["charge_automatically", "send_invoice"].includes(method))
    return error(400, `Invalid collection_method: must be one of charge_automatically or send_invoice`, { param: "collection_method" });
  if (method !== "send_invoice" && params.days_until_due !== undefined)
    return error(400, "days_until_due can only be set when collection_method is send_invoice.", { param: "days_until_due" });
  if (method === "send_invoice" && params.days_until_due === undefined)
    return error(400, "Missing required param: days_until_due.", { code: "parameter_missing", param: "days_until_due" });
  if (params.days_until_due !== undefined && !/^\d+$/.test(params.days_until_due))
    return error(400, `Invalid integer: ${params.days_until_due}`, { param: "days_until_due" });
  return undefined;
}

/** metadata: at most 50 keys, a key at most 40 characters (no square brackets), a value at most 500. */
function validateMetadata(metadata) {
  if (metadata === undefined) return undefined;
  const entries = Object.entries(metadata);
  if (entries.length > 50) return error(400, "Invalid metadata: metadata can have a maximum of 50 keys.", { param: "metadata" });
  const [key] = entries.find(([k, v]) => k.length > 40 || /[[\]]/.test(k) || String(v).length > 500) ?? [];
  if (key === undefined) return undefined;
  return error(400, `Invalid metadata[${key}]: keys are at most 40 characters and values at most 500.`, { param: `metadata[${key}]` });
}

function create(account, kind, params) {
  for (const key of Object.keys(params))
    if (!ALLOWED[kind].includes(key)) return error(400, `Received unknown parameter: ${key}`, { param: key });
  const badMetadata = validateMetadata(params.metadata);
  if (badMetadata) return badMetadata;
  const need = (key) =>
    params[key] === undefined ? error(400, `Missing required param: ${key}.`, { code: "parameter_missing", param: key }) : undefined;
  const find = (k, id) => account[k].find((o) => o.id === id);
  const id = `${PREFIX[kind]}_${String(++account.n).padStart(4, "0")}`;
  const base = { id, object: OBJECT[kind], livemode: false, created: 1_700_000_000 + account.n };
  if (kind === "customers") return { body: { ...base, name: params.name ?? null, email: params.email ?? null } };
  if (kind === "products") {
    return need("name") ?? { body: { ...base, name: params.name, description: params.description ?? null, active: true } };
  }
  if (kind === "prices") {
    const bad = need("product") ?? need("currency") ?? need("unit_amount");
    if (bad) return bad;
    if (!/^\d+$/.test(params.unit_amount)) return error(400, `Invalid integer: ${params.unit_amount}`, { param: "unit_amount" });
    if (!find("products", params.product)) return missing("product", params.product, "product");
    return {
      body: { ...base, product: params.product, unit_amount: Number(params.unit_amount), currency: params.currency, type: "one_time" },
    };
  }
  if (kind === "payment_links") {
    const items = params.line_items;
    if (!Array.isArray(items) || !items.length) return error(400, "Missing required param: line_items.", { param: "line_items" });
    for (const item of items) if (!find("prices", item.price)) return missing("price", item.price, "line_items[0][price]");
    const quantity = items.find((i) => !/^[1-9]\d*$/.test(i.quantity ?? ""))?.quantity;
    if (quantity !== undefined) return error(400, `Invalid integer: ${quantity}`, { param: "line_items[0][quantity]" });
    const line_items = items.map((i) => ({ price: i.price, quantity: Number(i.quantity) }));
    return { body: { ...base, active: true, url: `https://buy.stripe.com/test_${id}`, line_items } };
  }
  if (kind === "invoices") {
    const bad = need("customer") ?? validateCollection(params);
    if (bad) return bad;
    if (!find("customers", params.customer)) return missing("customer", params.customer, "customer");
    const due = params.days_until_due === undefined ? null : Number(params.days_until_due);
    return { body: { ...base, customer: params.customer, status: "draft", hosted_invoice_url: null, days_until_due: due } };
  }
  const bad = need("customer") ?? need("price");
  if (bad) return bad;
  if (!find("customers", params.customer)) return missing("customer", params.customer, "customer");
  if (!find("prices", params.price)) return missing("price", params.price, "price");
  if (params.invoice && !find("invoices", params.invoice)) return missing("invoice", params.invoice, "invoice");
  return { body: { ...base, customer: params.customer, price: params.price, invoice: params.invoice ?? null } };
}

function list(account, kind, query) {
  let data = [...account[kind]].reverse();
  if (query.email) data = data.filter((o) => o.email === query.email);
  if (query.product) data = data.filter((o) => o.product === query.product);
  const limit = query.limit === undefined ? 10 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    return error(400, "Invalid limit: must be between 1 and 100", { param: "limit" });
  // starting_after: the page after that object (newest first, as Stripe lists).
  if (query.starting_after) {
    const at = data.findIndex((o) => o.id === query.starting_after);
    if (at < 0) return missing(OBJECT[kind], query.starting_after, "starting_after");
    data = data.slice(at + 1);
  }
  return { body: { object: "list", url: `/v1/${kind}`, has_more: data.length > limit, data: data.slice(0, limit) } };
}

function route(account, method, path, query, form) {
  if (method === "GET" && path === "/v1/balance") {
    const money = (amount) => [{ amount, currency: "usd", source_types: { card: amount } }];
    return { body: { object: "balance", livemode: false, available: money(12_345), pending: money(678) } };
  }
  const finalize = path.match(/^\/v1\/invoices\/([^/]+)\/finalize$/);
  if (finalize && method === "POST") {
    const invoice = account.invoices.find((i) => i.id === decodeURIComponent(finalize[1]));
    if (!invoice) return missing("invoice", decodeURIComponent(finalize[1]), "id");
    if (invoice.status !== "draft") return error(400, `This invoice is already finalized, you can't re-finalize a non-draft invoice.`);
    Object.assign(invoice, { status: "open", hosted_invoice_url: `https://invoice.stripe.com/i/test_${invoice.id}` });
    return { body: invoice };
  }
  const kind = path.match(/^\/v1\/([a-z_]+)$/)?.[1];
  if (!kind || !ALLOWED[kind]) return error(404, `Unrecognized request URL (${method}: ${path}).`);
  if (method === "GET") return list(account, kind, query);
  if (method !== "POST") return error(404, `Unrecognized request URL (${method}: ${path}).`);
  const answer = create(account, kind, form);
  if (answer.status === undefined) account[kind].push(answer.body);
  return answer;
}

export function startStripeStandin() {
  const requests = [];
  const accounts = new Map();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://standin");
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks).toString("utf8");
    const send = (status, value) => {
      res.writeHead(status, { "content-type": "application/json", "request-id": "req_standin" });
      res.end(JSON.stringify(value));
    };
    if (url.pathname === "/requests") {
      const marker = url.searchParams.get("contains") ?? "";
      const seen = (r) => `${r.path} ${r.raw} ${r.headers.authorization ?? ""}`.includes(marker);
      return send(
        200,
        requests.filter(seen).map(({ raw: _raw, ...r }) => r),
      );
    }
    const form = parseForm(new URLSearchParams(raw));
    const query = Object.fromEntries(url.searchParams);
    requests.push({ method: req.method, path: url.pathname, query, headers: { ...req.headers }, form, raw });
    const key = (req.headers.authorization ?? "").replace(/^Bearer /, "");
    if (!KEY.test(key)) return send(401, { error: { type: "invalid_request_error", message: `Invalid API Key provided: ${key}` } });
    if (req.method === "POST" && raw && !String(req.headers["content-type"]).startsWith("application/x-www-form-urlencoded"))
      return send(400, { error: { type: "invalid_request_error", message: "Invalid request: expected a form-encoded body" } });
    if (!accounts.has(key)) accounts.set(key, makeAccount());
    const { status = 200, body } = route(accounts.get(key), req.method, url.pathname, query, form);
    send(status, body);
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
