// kind openapi: the runtime sends each command as an HTTP request itself.
import { noCommandsRule, type AdapterEntry, type KindLintContext, type Seg } from "./types";
import type { Problem } from "../../util/errors";
import type { SurfaceFile } from "../schema";

// a user:password in a server URL is a secret committed to the pack: never print it
const userinfo = (u: string | undefined) => !!u && /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(u);
const USERINFO_HINT =
  "remove it from the URL; give credentials through the Binding (an HTTP Basic scheme with username_env/password_env) or put the URL with its userinfo in the env override HCP_<PACK>_BASE_URL";

/** openapi_security_unknown: a security requirement naming a scheme openapi.schemes does not declare. */
function unknownSchemes(
  s: SurfaceFile,
  req: string[][] | undefined,
  segs: Seg[],
  at: KindLintContext["at"],
): Problem[] {
  const schemeNames = new Set(Object.keys(s.openapi?.schemes ?? {}));
  return [...new Set((req ?? []).flat())]
    .filter((name) => !schemeNames.has(name))
    .map((name) =>
      at(
        segs,
        "openapi_security_unknown",
        "error",
        `the security requirement names '${name}', which openapi.schemes does not declare`,
        `declare openapi.schemes.${name} (apiKey, bearer or basic with its Binding env names), or remove it`,
      ),
    );
}

export const openapi = {
  kind: "openapi",
  section: "openapi",
  sectionHint: 'add openapi: { document: "./openapi.json", base_url: "…" }',
  capabilities: {
    callable: true,
    jsonArgs: true,
    passThrough: false,
    readsStdout: false,
    cliArgv: false,
    serverTools: false,
  },
  lint: [
    {
      code: "kind_missing_config",
      check: (s, { at }) =>
        s.openapi && !s.openapi.document && !s.openapi.url
          ? [
              at(
                ["openapi"],
                "kind_missing_config",
                "error",
                "kind is 'openapi' but there is no openapi.document or openapi.url",
                'add openapi: { document: "./openapi.json", base_url: "…" }',
              ),
            ]
          : [],
    },
    noCommandsRule("an openapi pack", "name the commands (`hcpx pack from-openapi` proposes them)"),
    {
      code: "openapi_userinfo",
      check: (s, { at }) =>
        userinfo(s.openapi?.base_url)
          ? [
              at(
                ["openapi", "base_url"],
                "openapi_userinfo",
                "error",
                "openapi.base_url carries a user name and password (user:password@…)",
                USERINFO_HINT,
              ),
            ]
          : [],
    },
    {
      code: "openapi_security_unknown",
      check: (s, { at }) => unknownSchemes(s, s.openapi?.security, ["openapi", "security"], at),
    },
    {
      code: [
        "http_missing",
        "openapi_userinfo",
        "openapi_security_unknown",
        "openapi_body_whole",
        "http_path_placeholder",
      ],
      check: (s, { specs, at }) =>
        specs.flatMap((c, i) => {
          if (!c.http)
            return [
              at(
                ["commands", i],
                "http_missing",
                "error",
                `openapi command '${c.verb_key}' has no http: { method, path }`,
                'add http: { method: "GET", path: "/…" }',
              ),
            ];
          const out = [];
          if (userinfo(c.http.base_url))
            out.push(
              at(
                ["commands", i, "http", "base_url"],
                "openapi_userinfo",
                "error",
                `the server URL of '${c.verb_key}' carries a user name and password (user:password@…)`,
                USERINFO_HINT,
              ),
            );
          out.push(...unknownSchemes(s, c.http.security, ["commands", i, "http", "security"], at));
          const whole = c.http.body?.whole;
          if (whole !== undefined && (c.args?.[whole] === undefined || (c.args[whole]!.in ?? "body") !== "body"))
            out.push(
              at(
                ["commands", i, "http", "body", "whole"],
                "openapi_body_whole",
                "error",
                `http.body.whole names '${whole}', which is not a body arg of '${c.verb_key}'`,
                `declare args.${whole} with in: "body"`,
              ),
            );
          for (const m of c.http.path.matchAll(/\{([^{}]*)\}/g)) {
            if (!Object.hasOwn(c.args ?? {}, m[1]!))
              out.push(
                at(
                  ["commands", i, "http", "path"],
                  "http_path_placeholder",
                  "error",
                  `{${m[1]}} in the HTTP path names no arg of '${c.verb_key}'`,
                  `declare args.${m[1]} (in: "path")`,
                ),
              );
          }
          return out;
        }),
    },
  ],
  packFiles: (s) =>
    s.openapi?.document ? [{ rel: s.openapi.document, segs: ["openapi", "document"], what: "openapi.document" }] : [],
  review: (s) => ({
    http: [s.openapi?.base_url, s.openapi?.url].filter((x): x is string => typeof x === "string"),
    env: s.openapi?.auth?.env ? [s.openapi.auth.env] : [],
  }),
} as const satisfies AdapterEntry<"openapi">;
