// Columns every table shares. Timestamps are ISO 8601 UTC strings with milliseconds: they sort
// lexicographically, so range filters and ORDER BY work on the text column directly.
import { text } from "drizzle-orm/sqlite-core";

export const createdDate = () => text("createdDate").notNull();
export const updatedDate = () => text("updatedDate").notNull();
