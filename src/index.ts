import { createApp } from "./app";

// The Worker entry. Queue and scheduled handlers join here when the document store issue adds them.
export default createApp();
