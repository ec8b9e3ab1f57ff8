// The open streams of `hcpx mcp --http` (src/mcp/http.ts): a 2025-era GET, a
// 2026-07-28 subscriptions/listen, each let in once with its Authorization
// header and principal. At each announcement recheck() closes each whose
// token no longer authenticates as its principal (a removed token, an expired
// JWT, a subject taken off, a principal the server config no longer names):
// it is told nothing more than a new request with its token would be. A JWT's
// stream is also closed on its own once the JWT expires (`expiresAt`,
// whenExpired): it holds no slot past it. Each stream the server closes is
// told to `closed` (the audit log's folded lines, refusals.ts): its principal,
// why, from where, and how long it was open. A stream its client ends is not.
import type { ServerResponse } from "node:http";
import { whenExpired, type Authenticator, type Refusal } from "./auth";

/** A request whose answer is a stream that stays open: a 2025-era GET, a 2026-07-28 subscriptions/listen (the SDK checks the header against the body). */
export const isStream = (request: Request) =>
  request.method === "GET" || request.headers.get("mcp-method")?.trim() === "subscriptions/listen";

interface Open {
  header: string | null;
  principal: string;
  opened: number;
  userAgent: string | null;
  stop?: () => void;
}

/** Why a stream is closed: its token's refusal, or its principal's. */
type Why = Pick<Refusal, "error" | "description">;
const EXPIRED: Why = { error: "invalid_token", description: "the token has expired" };
const UNNAMED: Why = { error: "unknown_principal", description: "not in the server config" };
const OTHER: Why = { error: "invalid_token", description: "the token is now another principal's" };
const UNCHECKED: Why = { error: "invalid_token", description: "the token could not be checked" };

/** The fronts as the listener sees them: a principal's, and whether the server config (as it loads now) no longer names it. */
export interface Named {
  get(principal: string): unknown;
  removed?(principal: string): boolean;
}

/** The server config names `principal` now (its front is there and it was not taken out): served, else 403. */
export function namedNow(fronts: Named, principal: string): boolean {
  return Boolean(fronts.get(principal)) && !fronts.removed?.(principal);
}

export function openStreams(o: { auth?: Authenticator; fronts: Named; closed?: (r: Refusal) => void }) {
  const open = new Map<ServerResponse, Open>();
  const done = (res: ServerResponse) => (open.get(res)?.stop?.(), open.delete(res));
  const close = (res: ServerResponse, why: Why) => {
    const s = open.get(res);
    done(res);
    res.destroy();
    if (s)
      o.closed?.({
        ...why,
        principal: s.principal,
        openMs: Date.now() - s.opened,
        address: res.req?.socket.remoteAddress,
        userAgent: s.userAgent,
      });
  };
  return {
    watch(res: ServerResponse, request: Request, principal: string, expiresAt?: number): void {
      if (!isStream(request)) return;
      const stop = expiresAt === undefined ? undefined : whenExpired(expiresAt, () => close(res, EXPIRED));
      const [header, userAgent] = [request.headers.get("authorization"), request.headers.get("user-agent")];
      open.set(res, { header, principal, opened: Date.now(), userAgent, stop });
    },
    done,
    /** never rejects: a token that cannot be checked (an error) closes its stream */
    async recheck(): Promise<void> {
      const auth = o.auth;
      if (!auth || !open.size) return;
      await Promise.all(
        [...open].map(async ([res, s]) => {
          const who = await auth.authenticate(s.header).catch(() => undefined);
          if (who?.ok && who.principal === s.principal && namedNow(o.fronts, s.principal)) return;
          close(
            res,
            !who
              ? UNCHECKED
              : !who.ok
                ? { error: who.error, description: who.description }
                : who.principal !== s.principal
                  ? OTHER
                  : UNNAMED,
          );
        }),
      );
    },
  };
}
