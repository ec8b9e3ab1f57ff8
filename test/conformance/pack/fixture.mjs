#!/usr/bin/env node
// The conformance pack's bin: echoes the answers hcpx collected as one JSON
// value. `fixture.mjs <greet|echo|roots|state|all|rounds|context> [--name N] …`
const [what, ...rest] = process.argv.slice(2);
const o = {};
for (let i = 0; i < rest.length; i += 2) o[rest[i].replace(/^--/, "")] = rest[i + 1];
const text = {
  greet: () => `Hello, ${o.name}!`,
  echo: () => o.answer ?? "",
  roots: () => `roots: ${(o.roots ?? "").split("\n").filter(Boolean).join(", ")}`,
  state: () => `state-ok (ok=${o.ok})`,
  all: () => `name=${o.name ?? "-"} greeting=${o.greeting ?? "-"} roots=${o.roots ?? "-"}`,
  rounds: () => `${o.name} likes ${o.color}`,
  context: () => `context: ${o.context ?? "-"}`,
}[what];
if (!text) {
  process.stderr.write(`unknown fixture ${what}\n`);
  process.exit(2);
}
process.stdout.write(JSON.stringify({ text: text(), ...o }) + "\n");
