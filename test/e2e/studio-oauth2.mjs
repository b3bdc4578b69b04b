// The OAuth2 credential dialog in Chromium: a Gmail OAuth2 credential pointed at a loopback provider
// (test/standin/oauth2.mjs, whose consent page has already consented), Authenticate, the pop-up's
// round trip through the provider and our callback page, the dialog's success message; then the
// tokens the callback stored are used: a refresh sends the refresh token the provider issued.
import { OAUTH_CLIENT, startOAuth2Standin } from "../standin/oauth2.mjs";
import { assert } from "./studio-watch.mjs";

const dialog = (page) => page.locator(".MuiDialog-root");

export async function oauth2Authenticated({ page, origin, api, seen }) {
  const provider = await startOAuth2Standin();
  seen.providers.push(provider.url);
  try {
    const listed = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/v1/components-credentials", { timeout: 20_000 });
    await page.goto(`${origin}/credentials`);
    await listed;
    await page.getByRole("button", { name: "Add Credential" }).click();
    // Flowise's search matches the type's name 500 ms after typing (see the OpenAI credential's step).
    await dialog(page).getByPlaceholder("Search credential").fill("gmailOAuth2");
    await page.waitForTimeout(800);
    await dialog(page).getByText("Gmail OAuth2", { exact: true }).click();
    // The redirect URL to register with the provider is shown (a read-only field), on this origin.
    const redirect = await dialog(page).locator("#oauthRedirectUrl").inputValue({ timeout: 10_000 });
    assert(redirect === `${origin}/api/v1/oauth2-credential/callback`, `the redirect URL shown: ${redirect}`);
    const inputs = dialog(page).locator("input:not([disabled])");
    const values = ["e2e gmail", `${provider.url}/authorize`, `${provider.url}/token`, OAUTH_CLIENT.clientId, OAUTH_CLIENT.clientSecret];
    for (const [i, value] of values.entries()) await inputs.nth(i).fill(value);
    const popup = page.waitForEvent("popup", { timeout: 15_000 });
    await dialog(page).getByRole("button", { name: "Authenticate" }).click();
    await popup;
    await page.getByText("OAuth2 authorization completed successfully").first().waitFor({ timeout: 20_000 });

    const stored = (await api("GET", "/credentials")).find((c) => c.name === "e2e gmail");
    assert(stored?.credentialName === "gmailOAuth2", `credential: ${JSON.stringify(stored)}`);
    const seenBy = async (path) => (await (await fetch(`${provider.url}/requests?contains=`)).json()).filter((r) => r.path === path);
    const [consent] = await seenBy("/authorize");
    assert(consent?.form.redirect_uri === `${origin}/api/v1/oauth2-credential/callback`, `consent: ${JSON.stringify(consent)}`);
    assert(consent.form.state && consent.form.state !== stored.id, `the state is not signed: ${consent.form.state}`);
    const [exchange] = await seenBy("/token");
    assert(/^good-consent-\d+$/.test(exchange?.form.code ?? ""), `code exchange: ${JSON.stringify(exchange)}`);
    // The refresh token the exchange answered was stored (encrypted): a refresh sends it.
    await api("POST", `/oauth2-credential/refresh/${stored.id}`);
    const refresh = (await seenBy("/token")).find((r) => r.form.grant_type === "refresh_token");
    assert(refresh?.form.refresh_token === `rt-${exchange.form.code}`, `refresh: ${JSON.stringify(refresh)}`);
  } finally {
    seen.providers.length = 0;
    await provider.close();
  }
}
