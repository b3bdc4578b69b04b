import { z } from "@hono/zod-openapi";
import { name, text, uuid } from "./common";

const PLAIN_DATA_BYTES = 100_000;
const plainDataObj = () =>
  z
    .record(z.string(), z.unknown())
    .refine((o) => JSON.stringify(o).length <= PLAIN_DATA_BYTES, { message: `must be at most ${PLAIN_DATA_BYTES} bytes as JSON` })
    .openapi({ description: "The secret values, e.g. {openAIApiKey}; encrypted at rest and never returned" });
const credentialName = () => text(200).pipe(z.string().trim().min(1, "must not be empty"));

export const CredentialCreate = z
  .object({
    id: uuid().optional(),
    name: name(),
    credentialName: credentialName(),
    plainDataObj: plainDataObj(),
  })
  .openapi("CredentialCreate");

export const CredentialUpdate = z
  .object({
    name: name().optional(),
    credentialName: credentialName().optional(),
    plainDataObj: plainDataObj().optional().openapi({ description: "Keys given replace the stored ones; others are kept" }),
  })
  .openapi("CredentialUpdate");

export const CredentialListQuery = z.object({
  // The studio repeats the key for a node that takes several types (HTTP: `?credentialName=httpBasicAuth&credentialName=…`).
  credentialName: z
    .union([text(2000), z.array(text(200)).max(50)])
    .transform((v) => (Array.isArray(v) ? v.join(",") : v))
    .optional()
    .openapi({ description: "Only credentials of these types (comma-separated, or the key repeated)" }),
});

export const Credential = z
  .object({
    id: z.string(),
    name: z.string(),
    credentialName: z.string(),
    createdDate: z.string(),
    updatedDate: z.string(),
  })
  .openapi("Credential");

export const OAuth2Authorization = z
  .object({
    success: z.literal(true),
    message: z.string(),
    credentialId: z.string(),
    authorizationUrl: z.string().openapi({ description: "The provider's consent page, with a signed state good for 15 minutes" }),
    redirectUri: z.string(),
  })
  .openapi("OAuth2Authorization");

export const OAuth2Refresh = z
  .object({
    success: z.literal(true),
    message: z.string(),
    credentialId: z.string(),
    tokenInfo: z.object({
      token_type: z.string().optional(),
      has_new_refresh_token: z.boolean(),
      expires_at: z.string().optional(),
    }),
  })
  .openapi("OAuth2Refresh");

export const OAuth2CallbackQuery = z.object({
  code: z.string().max(4000).optional(),
  state: z.string().max(1000).optional(),
  error: z.string().max(500).optional(),
  error_description: z.string().max(2000).optional(),
});
