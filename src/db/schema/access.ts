// Who may do what, and the secrets kept for it: API keys, credentials, webhook secrets, and the
// studio's accounts and sessions.
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdDate, updatedDate } from "./columns";

export const apiKey = sqliteTable(
  "apikey",
  {
    id: text("id").primaryKey(),
    keyName: text("keyName").notNull(),
    // SHA-256 of the key, hex: how a bearer token finds its key.
    keyHash: text("keyHash").notNull(),
    // The key sealed (AES-GCM) with CREDENTIAL_ENCRYPTION_KEY, for the studio's eye icon: revealed to
    // a signed-in person only (middleware/studio-shapes.ts). NULL for keys made before it was kept,
    // or while that secret was unset: those stay masked.
    keySealed: text("keySealed"),
    // "abcd…wxyz": enough for a person to recognise the key in a list.
    keyMask: text("keyMask").notNull(),
    // JSON arrays: Flowise permission names, and the chatflow ids the key is limited to. NULL = all.
    permissions: text("permissions"),
    chatflows: text("chatflows"),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [uniqueIndex("uq_apikey_hash").on(t.keyHash)],
);

export const credential = sqliteTable(
  "credential",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    credentialName: text("credentialName").notNull(),
    // AES-GCM ciphertext of the JSON plainDataObj: base64(iv || ciphertext).
    encryptedData: text("encryptedData").notNull(),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [index("idx_credential_name").on(t.credentialName)],
);

/**
 * A webhook-triggered agentflow's shared secret (Flowise's chat_flow.webhookSecret, kept apart so
 * it never travels with a flow's record): AES-GCM ciphertext, base64(iv || ciphertext), under
 * CREDENTIAL_ENCRYPTION_KEY. Shown once, by POST /chatflows/{id}/webhook-secret.
 */
export const webhookSecret = sqliteTable("webhook_secret", {
  chatflowId: text("chatflowId").primaryKey(),
  encryptedSecret: text("encryptedSecret").notNull(),
  createdDate: createdDate(),
});

/**
 * A canvas listening to a webhook-triggered flow (/webhook-listener): registered, kept while its
 * stream is open (its WebhookListeners object pushes `expiresAt` on), gone when it closes. A webhook
 * call reads whether one exists beside its secret, so a flow nobody listens to costs no extra trip.
 */
export const webhookListener = sqliteTable(
  "webhook_listener",
  {
    id: text("id").primaryKey(),
    chatflowId: text("chatflowId").notNull(),
    expiresAt: text("expiresAt").notNull(),
  },
  (t) => [index("idx_webhook_listener_flow").on(t.chatflowId, t.expiresAt)],
);

/**
 * A person who signs in to the studio (the web UI at /). `email` is stored lower-cased (unique);
 * `passwordHash` is lib/password.ts's "pbkdf2-sha256$<iterations>$<salt>$<hash>", never the password.
 */
export const account = sqliteTable(
  "account",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    passwordHash: text("passwordHash").notNull(),
    createdDate: createdDate(),
    updatedDate: updatedDate(),
  },
  (t) => [uniqueIndex("uq_account_email").on(t.email)],
);

/**
 * A signed-in session. `id` is the SHA-256 (hex) of the cookie's token: the token itself is never
 * stored. Requests pass until `accessUntil`; then POST /auth/refreshToken moves both times on,
 * until `expiresAt` (the idle limit) has passed. Deleting the row signs the session out at once.
 */
export const accountSession = sqliteTable(
  "account_session",
  {
    id: text("id").primaryKey(),
    accountId: text("accountId").notNull(),
    accessUntil: text("accessUntil").notNull(),
    expiresAt: text("expiresAt").notNull(),
    createdDate: createdDate(),
  },
  (t) => [index("idx_account_session_account").on(t.accountId)],
);
