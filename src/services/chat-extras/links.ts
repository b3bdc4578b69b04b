// GET /fetch-links: the links a web loader node's "Manage links" dialog lists. The crawl lives with
// the web loaders (providers/loaders/links.ts), which follow the same links when they load a site.
export { LINK_METHODS, MAX_LINKS, fetchLinks } from "../../providers/loaders/links";
