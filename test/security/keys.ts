// Shared by the security tests: API keys of a given scope, made through the API.
import { json } from "../helpers";

export interface MadeKey {
  id: string;
  apiKey: string;
}

/** A key with these permissions (omitted: full access) and optionally limited to chatflows. */
export async function keyWith(permissions?: string[] | null, chatflows?: string[]): Promise<MadeKey> {
  const body: Record<string, unknown> = { keyName: `scoped ${crypto.randomUUID().slice(0, 6)}` };
  if (permissions !== undefined) body.permissions = permissions;
  if (chatflows !== undefined) body.chatflows = chatflows;
  return json("POST", "/apikey", { body });
}

/** A chatflow record of a type, through the API; answers its id. */
export async function flowOf(type = "CHATFLOW", extra: Record<string, unknown> = {}): Promise<string> {
  return (await json("POST", "/chatflows", { body: { name: `${type} flow`, flowData: '{"nodes":[],"edges":[]}', type, ...extra } })).id;
}
