// RFC 3986's percent-encoding of a URL component: its unreserved characters stay, everything else is
// encoded (encodeURIComponent leaves `!'()*` as they are). The one form hcpx sends an openapi pack's query,
// path and cookie values in (src/runtime/openapi-request.ts), and so one the redaction hides a value in.
export const strictPercent = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
