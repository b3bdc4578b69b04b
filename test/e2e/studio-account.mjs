// The studio's account steps, in the browser and replayed from outside it: the first account on the
// setup page, the session cookie's flags and where it counts, signing out from the menu (the old
// cookie refused), signing in on the sign-in page, and sign-in paused after repeated wrong passwords.
import { COOKIE, assert, need, sessionCookie, withCookie } from "./studio-watch.mjs";

export const EMAIL = "owner@example.com";
export const PASSWORD = "Studio-e2e-Passw0rd!";
const HOME = "Build single-agent systems"; // the chatflows page's heading, shown once signed in

/** Set-Cookie headers naming the session cookie, as the page received them. */
function recordSetCookie(page) {
  const headers = [];
  page.on("response", async (r) => {
    const value = await r.headerValue("set-cookie").catch(() => null);
    if (value?.includes(`${COOKIE}=`)) headers.push(value);
  });
  return headers;
}

export async function setUpFirstAccount({ page, context, origin, j }) {
  const setCookies = recordSetCookie(page);
  await page.goto(`${origin}/`);
  await page.waitForURL(/\/organization-setup$/, { timeout: 30_000 });
  const inputs = page.locator("input");
  await inputs.nth(0).fill("Studio Owner");
  await inputs.nth(1).fill(EMAIL);
  await inputs.nth(2).fill(PASSWORD);
  await inputs.nth(3).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign Up" }).click();
  await page.getByText(HOME).first().waitFor({ timeout: 30_000 });
  assert(!(await page.getByText("We're sunsetting Flowise").count()), "the sunset banner is shown");
  const cookie = await sessionCookie(context);
  assert(
    cookie?.httpOnly && ["Lax", "Strict"].includes(cookie.sameSite) && cookie.path === "/",
    `session cookie: ${JSON.stringify(cookie)}`,
  );
  const header = setCookies.at(-1) ?? "";
  for (const flag of [/;\s*HttpOnly/i, /;\s*SameSite=(Lax|Strict)/i, /;\s*Path=\/(;|$)/i]) {
    assert(flag.test(header), `Set-Cookie lacks ${flag}: ${header.replace(/=[^;]{8,}/, "=…")}`);
  }
  j.cookie = cookie.value;
}

export async function cookieCountsOnlyFromTheStudio({ origin, api, j }) {
  const value = need(j.cookie, "no session cookie (first-account step)");
  const bare = await withCookie(origin, value, "/chatflows", { internal: false });
  assert(bare.status === 401, `the cookie without x-request-from: ${bare.status}`);
  const internal = await withCookie(origin, value, "/chatflows");
  assert(internal.status === 200, `the cookie with x-request-from: internal: ${internal.status}`);
  // A write from another origin carrying the cookie (what a forged form or fetch would send).
  const forged = await withCookie(origin, value, "/variables", {
    method: "POST",
    body: { name: "forged", value: "x", type: "static" },
    headers: { origin: "https://elsewhere.example" },
  });
  assert(forged.status === 403, `a cookie write from another origin: ${forged.status}`);
  const variables = await api("GET", "/variables");
  assert(!variables.some((v) => v.name === "forged"), "the forged write stored a variable");
}

/** Signs out from the settings menu, as a person does; checks the old cookie is refused afterwards. */
export async function signOutFromTheMenu({ page, context, origin, j }) {
  const old = need(j.cookie, "no session cookie");
  if (new URL(page.url()).pathname !== "/chatflows") await page.goto(`${origin}/chatflows`); // a page with the menu
  await page.locator("header button:has(svg.tabler-icon-settings)").click();
  await page.getByText("Logout", { exact: true }).click();
  await page.waitForURL(/\/signin$/, { timeout: 15_000 });
  const after = await withCookie(origin, old, "/chatflows");
  assert(after.status === 401, `the old cookie after signing out: ${after.status}`);
  const still = await sessionCookie(context);
  assert(!still || still.value !== old, "the browser still holds the ended session's cookie");
}

export async function signInOnTheSignInPage({ page, context, origin, j }) {
  await page.goto(`${origin}/signin`);
  await page.locator("input[type=email]").fill(EMAIL);
  await page.locator("input[type=password]").fill(PASSWORD);
  await page.getByRole("button", { name: /login/i }).click();
  await page.getByText(HOME).first().waitFor({ timeout: 30_000 });
  const cookie = await sessionCookie(context);
  assert(cookie && cookie.value !== j.cookie, "signing in gave no new session cookie");
  j.cookie = cookie.value;
}

const login = (origin, email, password) =>
  fetch(`${origin}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-request-from": "internal" },
    body: JSON.stringify({ email, password }),
  });

/**
 * Five wrong passwords for the account are each a 401 (the same body as an unknown email's), the
 * sixth attempt a 429 — the right password too, while the pause lasts — and the sign-in page says so.
 */
export async function wrongPasswordsPauseSignIn({ page, origin }) {
  const unknown = await login(origin, "nobody@example.com", "Wrong-passw0rd-0");
  const unknownBody = await unknown.json();
  assert(unknown.status === 401, `an unknown email: ${unknown.status}`);
  for (let i = 1; i <= 5; i++) {
    const res = await login(origin, EMAIL, `Wrong-passw0rd-${i}`);
    const body = await res.json();
    assert(res.status === 401, `wrong password ${i}: ${res.status} ${JSON.stringify(body)}`);
    assert(body.message === unknownBody.message, `a wrong password and an unknown email answer differently: ${body.message}`);
  }
  const sixth = await login(origin, EMAIL, "Wrong-passw0rd-6");
  const paused = await sixth.json();
  assert(sixth.status === 429, `the sixth wrong password: ${sixth.status} ${JSON.stringify(paused)}`);
  const right = await login(origin, EMAIL, PASSWORD);
  assert(right.status === 429, `the right password during the pause: ${right.status}`);
  await page.goto(`${origin}/signin`);
  await page.locator("input[type=email]").fill(EMAIL);
  await page.locator("input[type=password]").fill(PASSWORD);
  const answer = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/v1/auth/login");
  await page.getByRole("button", { name: /login/i }).click();
  assert((await answer).status() === 429, "the sign-in page's attempt was not refused");
  await page.getByRole("alert").filter({ hasText: "Too many failed sign-in attempts" }).waitFor();
  assert(new URL(page.url()).pathname === "/signin", `the page went on to ${page.url()} while sign-in is paused`);
}
