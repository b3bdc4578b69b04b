// Paths a chat widget on any web page may call. They answer CORS for every origin; whether a
// request is allowed is decided by the handler (public chatflow, allowed origins), and a refusal
// carries CORS headers so the widget can read it.
const WIDGET_PATHS = [
  /^\/api\/v1\/(ping|version|openapi\.json|docs)\/?$/,
  /^\/api\/v1\/prediction\/[^/]+\/?$/,
  /^\/api\/v1\/public-chatbotConfig\/[^/]+\/?$/,
  /^\/api\/v1\/chatflows-streaming\/[^/]+\/?$/,
  /^\/api\/v1\/leads\/?$/,
  /^\/api\/v1\/feedback(\/[^/]+)?\/?$/,
  /^\/api\/v1\/chatmessage\/abort\/[^/]+\/[^/]+\/?$/,
];

export const isWidgetPath = (path: string): boolean => WIDGET_PATHS.some((re) => re.test(path));
