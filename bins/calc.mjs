#!/usr/bin/env node
// calc — the wrap twin of the composite `calc` pack: same operations (packs/calc/ops.mjs),
// one process per call. packs/calc-wrap wraps it, so a benchmark can compare the same
// command run as wrap (spawn) and as composite (in-process).
//
//   calc ping
//   calc add <a> <b>
//   calc stats <values>            values: "1, 2, 3.5"
//   calc convert <value> <from> <to>
//
// Options: --json (or env CALC_OUTPUT=json) prints exactly one JSON value on stdout.
// Exit codes: 0 ok, 1 usage / bad argument.
import { ping, add, stats, convert, CalcError } from '../packs/calc/ops.mjs';

const USAGE = 'usage: calc <ping | add <a> <b> | stats <values> | convert <value> <from> <to>> [--json]';

const COMMANDS = {
  ping: { n: 0, run: () => ping(), text: () => 'pong' },
  add: { n: 2, run: ([a, b]) => add({ a, b }), text: (d) => String(d.sum) },
  stats: {
    n: 1,
    run: ([values]) => stats({ values }),
    text: (d) => Object.entries(d).map(([k, v]) => `${k.padEnd(7)} ${v}`).join('\n'),
  },
  convert: { n: 3, run: ([value, from, to]) => convert({ value, from, to }), text: (d) => `${d.value} ${d.from} = ${d.result} ${d.to}` },
};

function main(argv) {
  let json = process.env.CALC_OUTPUT === 'json';
  const pos = [];
  let rest = false;
  for (const a of argv) {
    if (!rest && a === '--') { rest = true; continue; }
    if (!rest && a === '--json') { json = true; continue; }
    if (!rest && a.startsWith('-') && !/^-(\d|\.\d)/.test(a)) {
      process.stderr.write(`calc: unknown option: ${a}\n${USAGE}\n`);
      return 1;
    }
    pos.push(a);
  }
  const [cmd, ...args] = pos;
  const c = cmd !== undefined && Object.hasOwn(COMMANDS, cmd) ? COMMANDS[cmd] : null;
  if (!c) {
    process.stderr.write(`calc: ${cmd === undefined ? 'missing command' : `unknown command: ${cmd}`}\n${USAGE}\n`);
    return 1;
  }
  if (args.length !== c.n) {
    process.stderr.write(`calc: ${cmd} takes ${c.n} argument${c.n === 1 ? '' : 's'}\n${USAGE}\n`);
    return 1;
  }
  try {
    const data = c.run(args);
    process.stdout.write((json ? JSON.stringify(data) : c.text(data)) + '\n');
    return 0;
  } catch (e) {
    process.stderr.write(`calc: ${e instanceof CalcError ? e.message : `internal error: ${e && e.message}`}\n`);
    return e instanceof CalcError ? 1 : 70;
  }
}

process.exitCode = main(process.argv.slice(2));
