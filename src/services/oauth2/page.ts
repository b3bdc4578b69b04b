// The page the OAuth2 callback answers in the studio's pop-up: it tells the studio (its opener, on
// this origin only) how the authorization ended — `OAUTH2_SUCCESS` or `OAUTH2_ERROR`, the messages
// Flowise's credential dialog listens for — and closes itself. Every value shown is escaped, and the
// one inline script is allowed by its hash alone (the values it posts are read from data attributes,
// so the script's text, and its hash, never change).

export interface OAuth2Outcome {
  ok: boolean;
  title: string;
  message: string;
  credentialId?: string;
}

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] as string);

const SCRIPT = `(function(){var d=document.body.dataset;var m={type:d.type,credentialId:d.credential||undefined,message:d.message};
if(window.opener){try{window.opener.postMessage(m,window.location.origin)}catch(e){}}setTimeout(function(){window.close()},2000)})();`;

let scriptHash: Promise<string> | undefined;
function hashOfScript(): Promise<string> {
  scriptHash ??= crypto.subtle.digest("SHA-256", new TextEncoder().encode(SCRIPT)).then((digest) => {
    let bin = "";
    for (const b of new Uint8Array(digest)) bin += String.fromCharCode(b);
    return `sha256-${btoa(bin)}`;
  });
  return scriptHash;
}

/** The page's HTML and the headers that go with it (a strict CSP, no caching, no referrer). */
export async function outcomePage(outcome: OAuth2Outcome): Promise<{ html: string; headers: Record<string, string> }> {
  const type = outcome.ok ? "OAUTH2_SUCCESS" : "OAUTH2_ERROR";
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(outcome.title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:3rem;text-align:center;color:#333}h1{font-size:1.3rem}
.ok{color:#2e7d32}.err{color:#c62828}</style></head>
<body data-type="${type}" data-credential="${escapeHtml(outcome.credentialId ?? "")}" data-message="${escapeHtml(outcome.message)}">
<h1 class="${outcome.ok ? "ok" : "err"}">${escapeHtml(outcome.title)}</h1><p>${escapeHtml(outcome.message)}</p>
<p>You can close this window.</p><script>${SCRIPT}</script></body></html>`;
  return {
    html,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": [
        "default-src 'none'",
        "style-src 'unsafe-inline'",
        `script-src '${await hashOfScript()}'`,
        "base-uri 'none'",
        "form-action 'none'",
      ].join("; "),
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
    },
  };
}
