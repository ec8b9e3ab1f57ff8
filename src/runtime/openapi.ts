// The openapi adapter: the runtime sends each command as an HTTP request
// itself (Node's fetch), from what `hcpx pack from-openapi` wrote into the
// surface (the document itself is never read here): `http.path` with {name}
// from path args, query / header / cookie args serialized in their OpenAPI
// style, a body in the operation's media type (JSON, form-urlencoded,
// multipart text fields; none when the operation has none), the Accept the
// operation answers with, and the credentials its `security` names, each from
// a Binding env name.
//
// Where a request goes is exactly what the grant says (docs/security.md):
// - a path parameter never changes the path: its value is percent-encoded
//   (`/`, `\`, `?`, `#`, `%` included) and a segment that would be empty, `.`
//   or `..` is refused before anything is sent;
// - redirects are followed (at most 5) only to the same origin; a redirect to
//   another origin is an error and is not followed, so a Binding header, query
//   key or cookie never reaches another origin;
// - a base URL's userinfo (user:password) is sent as HTTP Basic, never in the
//   URL, and is a secret: execute() redacts it from every output.
//
// Base URL: $HCP_<PACK_ID>_BASE_URL (id upper-cased, '-' → '_') replaces every
// server URL of the pack (openapi.base_url and the operations' own); a
// relative openapi.base_url ("/api/v3") is resolved against it.
//
// In steps, one module each: the base URL (./openapi-base.ts), the request
// (./openapi-request.ts), sending it and reading the answer
// (./openapi-send.ts), the answer as an envelope (./openapi-answer.ts).
import type { AdapterCall } from "./adapters/types";
import { failure, type Envelope } from "./envelope";
import { answer } from "./openapi-answer";
import { baseOf } from "./openapi-base";
import { buildRequest, neededEnv, RequestError, type Built } from "./openapi-request";
import { exchange, readAnswer, send } from "./openapi-send";
import { DEFAULT_TIMEOUT_MS } from "./wrap";

/** The openapi adapter (the table: ./adapters/index.ts). */
export async function runOpenapi({
  pack,
  cmd,
  values,
  env: runtimeEnv,
  signal: cancel,
}: AdapterCall<"openapi">): Promise<Envelope> {
  if (!cmd.http)
    return failure("bad_pack", `${cmd.verb_key} has no http { method, path }`, {
      hint: "each openapi command names its operation in http",
    });
  const b = baseOf(pack, cmd, runtimeEnv);
  if (b.error) return b.error;
  let built: Built;
  try {
    built = buildRequest(pack, cmd, values, b.base!, runtimeEnv);
  } catch (e) {
    if (e instanceof RequestError) return failure(e.code, e.message, { arg: e.arg });
    throw e;
  }
  const label = `${cmd.http.method} ${cmd.http.path}`;
  const x = exchange(label, pack.surface.openapi.timeout_ms ?? DEFAULT_TIMEOUT_MS, cancel, b.from);
  const sent = await send(built, cmd.http.method, x);
  if (sent.error) return sent.error;
  const read = await readAnswer(sent.res, x);
  if (read.error) return read.error;
  return answer(sent.res, read.bytes, label, () => neededEnv(pack, cmd, runtimeEnv));
}
