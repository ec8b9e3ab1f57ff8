// execute.ts's Binding names of a pack, and its gate 6a: no Binding value too short to hide (./short-binding.ts).
import type { Pack } from "../pack/model";
import type { Envelope } from "./envelope";
import { shortBinding } from "./short-binding";
import { kindKeyValues, kindSecretEnv } from "./adapters/index";

/** Names whose runtime-env values are secrets for this pack (binding.env + what its kind reads as credentials, e.g. openapi.auth.env). */
export function bindingNames(pack: Pack): string[] {
  const names = [...(pack.surface.binding?.env ?? [])];
  for (const n of kindSecretEnv(pack)) if (!names.includes(n)) names.push(n);
  return names;
}

/** 6a (execute.ts GATES): the call's refusal when its pack's Binding holds a value too short to hide. */
export function bindingGate({ pack, opts }: { pack: Pack; opts: { env?: NodeJS.ProcessEnv } }): Envelope | undefined {
  const env = opts.env ?? process.env;
  return shortBinding(pack.id, bindingNames(pack), env, kindKeyValues(pack, env));
}
