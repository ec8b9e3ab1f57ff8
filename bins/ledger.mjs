#!/usr/bin/env node
// ledger — a small household ledger kept in one JSON file.
// Zero dependencies (node: builtins only). Never prompts.
//
//   ledger accounts                                  list accounts with balances
//   ledger balance <account>                         balance of one account
//   ledger entries <account> [--limit N]             newest entries first
//   ledger account open <account> [--name NAME]      open an account
//   ledger entry add <account> <amount> [--memo M]   add an entry (negative = spend)
//   ledger entry delete <id>                         delete an entry (both legs of a transfer)
//   ledger transfer <from> <to> <amount> [--memo M]  move money between accounts
//   ledger doctor                                    check the ledger file
//
// Options: --json (or env LEDGER_OUTPUT=json) prints exactly one JSON value on stdout.
// File: env LEDGER_FILE, else ./ledger.json. LEDGER_SEED=1 seeds a missing/empty file
// with two accounts. LEDGER_NOW (ISO time) fixes timestamps for tests.
// Exit codes: 0 ok, 1 usage / not found / refused, 3 ledger file unreadable or corrupt.
import fs from 'node:fs';
import path from 'node:path';

const USAGE = `usage: ledger <command> [args] [--json]
commands:
  accounts
  balance <account>
  entries <account> [--limit N]
  account open <account> [--name NAME]
  entry add <account> <amount> [--memo TEXT]
  entry delete <id>
  transfer <from> <to> <amount> [--memo TEXT]
  doctor
env: LEDGER_FILE (default ./ledger.json), LEDGER_OUTPUT=json, LEDGER_SEED=1`;

class CliError extends Error {
  constructor(message, code = 1, kind = 'usage') {
    super(message);
    this.exitCode = code;
    this.kind = kind;
  }
}
const usage = (msg) => new CliError(msg, 1, 'usage');
const usageFull = (msg) => new CliError(`${msg}\n${USAGE}`, 1, 'usage');
const notFound = (msg) => new CliError(msg, 1, 'not_found');
const refused = (msg) => new CliError(msg, 1, 'refused');

// ---------- argv ----------
const FLAGS_WITH_VALUE = new Set(['--limit', '--memo', '--name', '--file']);
const BOOL_FLAGS = new Set(['--json', '--help', '-h']);

function parseArgv(argv) {
  const pos = [];
  const opts = {};
  let rest = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (rest) { pos.push(a); continue; }
    if (a === '--') { rest = true; continue; }
    // negative numbers are positionals, not flags
    if (a.startsWith('-') && !/^-\d/.test(a)) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(0, eq) : a;
      if (BOOL_FLAGS.has(name)) {
        if (eq > 0) throw usage(`${name} takes no value`);
        opts[name] = true;
      } else if (FLAGS_WITH_VALUE.has(name)) {
        let v;
        if (eq > 0) v = a.slice(eq + 1);
        else {
          if (i + 1 >= argv.length) throw usage(`${name} needs a value`);
          v = argv[++i];
        }
        opts[name] = v;
      } else {
        throw usage(`unknown option: ${name}`);
      }
      continue;
    }
    pos.push(a);
  }
  return { pos, opts };
}

// ---------- values ----------
const ACCOUNT_RE = /^[a-z][a-z0-9_-]{0,31}$/;
function accountId(s, what = 'account') {
  if (s === undefined) throw usage(`missing <${what}>`);
  if (!ACCOUNT_RE.test(s)) throw usage(`bad ${what} id "${s}": use lowercase letters, digits, "-" or "_" (max 32)`);
  return s;
}
function cents(s, { positive = false } = {}) {
  if (s === undefined) throw usage('missing <amount>');
  const m = /^(-)?(\d{1,12})(?:\.(\d{1,2}))?$/.exec(String(s).trim());
  if (!m) throw usage(`bad amount "${s}": use a number like 12.50 or -3`);
  const c = (Number(m[2]) * 100 + Number((m[3] || '').padEnd(2, '0'))) * (m[1] ? -1 : 1);
  if (c === 0) throw usage('amount must not be zero');
  if (positive && c < 0) throw usage('amount must be positive');
  return c;
}
const money = (c) => Math.round(c) / 100;
const fmt = (c) => (c < 0 ? '-' : '') + (Math.abs(c) / 100).toFixed(2);
function positiveInt(s, what) {
  if (!/^\d{1,9}$/.test(String(s)) || Number(s) < 1) throw usage(`bad ${what} "${s}": use a positive integer`);
  return Number(s);
}
function nowIso() {
  const fixed = process.env.LEDGER_NOW;
  if (fixed) {
    const d = new Date(fixed);
    if (!Number.isNaN(d.getTime())) return d.toISOString();
  }
  return new Date().toISOString();
}

// ---------- file ----------
function ledgerFile(opts) {
  return path.resolve(opts['--file'] || process.env.LEDGER_FILE || 'ledger.json');
}

function emptyLedger() {
  return { version: 1, next_id: 1, accounts: {}, entries: [] };
}
function seededLedger() {
  const at = '2026-01-01T00:00:00.000Z'; // fixed, so seeded reads are deterministic
  return {
    version: 1,
    next_id: 3,
    accounts: {
      checking: { id: 'checking', name: 'Checking', opened: at },
      savings: { id: 'savings', name: 'Savings', opened: at },
    },
    entries: [
      { id: 1, account: 'checking', amount_cents: 120000, memo: 'opening balance', at },
      { id: 2, account: 'savings', amount_cents: 500000, memo: 'opening balance', at },
    ],
  };
}

function load(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (e.code === 'ENOENT') return { ledger: process.env.LEDGER_SEED === '1' ? seededLedger() : emptyLedger(), exists: false };
    throw new CliError(`cannot read ledger file ${file}: ${e.code || e.message}`, 3, 'io');
  }
  if (text.trim() === '') return { ledger: process.env.LEDGER_SEED === '1' ? seededLedger() : emptyLedger(), exists: true };
  let data;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new CliError(`ledger file ${file} is not valid JSON: ${e.message}`, 3, 'corrupt');
  }
  if (!data || typeof data !== 'object' || typeof data.accounts !== 'object' || !Array.isArray(data.entries)
      || !Number.isInteger(data.next_id)) {
    throw new CliError(`ledger file ${file} has an unexpected shape (want accounts, entries, next_id)`, 3, 'corrupt');
  }
  return { ledger: data, exists: true };
}

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// One writer at a time: an exclusive lock file next to the ledger (stale after 10 s).
function withLock(file, fn) {
  const lock = `${file}.lock`;
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      const fd = fs.openSync(lock, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      break;
    } catch (e) {
      if (e.code === 'ENOENT') throw new CliError(`cannot create ledger lock: directory of ${file} does not exist`, 3, 'io');
      if (e.code !== 'EEXIST') throw new CliError(`cannot create ledger lock ${lock}: ${e.code || e.message}`, 3, 'io');
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > 10000) { fs.rmSync(lock, { force: true }); continue; }
      } catch { continue; }
      if (Date.now() > deadline) throw new CliError(`ledger is locked by another writer (${lock})`, 1, 'busy');
      sleepSync(15);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

// Atomic: write a temp file in the same directory, fsync, rename over the ledger.
function save(file, ledger) {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeSync(fd, JSON.stringify(ledger, null, 2) + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new CliError(`cannot write ledger file ${file}: ${e.code || e.message}`, 3, 'io');
  }
}

// ---------- model ----------
function balanceOf(ledger, id) {
  return ledger.entries.reduce((s, e) => (e.account === id ? s + e.amount_cents : s), 0);
}
function mustAccount(ledger, id) {
  const a = ledger.accounts[id];
  if (!a) throw notFound(`account not found: ${id}`);
  return a;
}
const entryOut = (e) => {
  const o = { id: e.id, account: e.account, amount: money(e.amount_cents), memo: e.memo ?? null, at: e.at };
  if (e.transfer) o.transfer = e.transfer;
  return o;
};

// ---------- commands ----------
// Each returns { data, text }.
const commands = {
  accounts(pos, opts, ctx) {
    if (pos.length) throw usage(`accounts takes no arguments`);
    const { ledger } = load(ctx.file);
    const list = Object.values(ledger.accounts)
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((a) => ({
        id: a.id,
        name: a.name ?? a.id,
        balance: money(balanceOf(ledger, a.id)),
        entries: ledger.entries.filter((e) => e.account === a.id).length,
      }));
    const text = list.length
      ? list.map((a) => `${a.id.padEnd(16)} ${a.balance.toFixed(2).padStart(12)}  ${a.name}`).join('\n')
      : 'no accounts (open one with: ledger account open <id>)';
    return { data: { accounts: list }, text };
  },

  balance(pos, opts, ctx) {
    if (pos.length > 1) throw usage('balance takes one <account>');
    const id = accountId(pos[0]);
    const { ledger } = load(ctx.file);
    mustAccount(ledger, id);
    const c = balanceOf(ledger, id);
    return { data: { account: id, balance: money(c) }, text: `${id}: ${fmt(c)}` };
  },

  entries(pos, opts, ctx) {
    if (pos.length > 1) throw usage('entries takes one <account>');
    const id = accountId(pos[0]);
    const limit = opts['--limit'] !== undefined ? positiveInt(opts['--limit'], '--limit') : 20;
    const { ledger } = load(ctx.file);
    mustAccount(ledger, id);
    const all = ledger.entries.filter((e) => e.account === id);
    const list = all.slice().sort((a, b) => b.id - a.id).slice(0, limit).map(entryOut);
    const text = list.length
      ? list.map((e) => `#${String(e.id).padEnd(5)} ${e.amount.toFixed(2).padStart(12)}  ${e.at.slice(0, 10)}  ${e.memo ?? ''}`.trimEnd()).join('\n')
      : `no entries for ${id}`;
    return { data: { account: id, entries: list, total: all.length }, text };
  },

  'account open'(pos, opts, ctx) {
    if (pos.length > 1) throw usage('account open takes one <account>');
    const id = accountId(pos[0]);
    const name = opts['--name'] ?? id;
    return withLock(ctx.file, () => {
      const { ledger } = load(ctx.file);
      if (ledger.accounts[id]) throw refused(`account already exists: ${id}`);
      const account = { id, name, opened: nowIso() };
      ledger.accounts[id] = account;
      save(ctx.file, ledger);
      return { data: { account: { ...account, balance: 0 } }, text: `opened ${id} (${name})` };
    });
  },

  'entry add'(pos, opts, ctx) {
    if (pos.length > 2) throw usage('entry add takes <account> <amount>');
    const id = accountId(pos[0]);
    const amount = cents(pos[1]);
    const memo = opts['--memo'];
    return withLock(ctx.file, () => {
      const { ledger } = load(ctx.file);
      mustAccount(ledger, id);
      const entry = { id: ledger.next_id++, account: id, amount_cents: amount, memo: memo ?? null, at: nowIso() };
      ledger.entries.push(entry);
      save(ctx.file, ledger);
      const bal = balanceOf(ledger, id);
      return { data: { entry: entryOut(entry), balance: money(bal) }, text: `added #${entry.id} ${fmt(amount)} to ${id}; balance ${fmt(bal)}` };
    });
  },

  'entry delete'(pos, opts, ctx) {
    if (pos.length !== 1) throw usage('entry delete takes one <id>');
    const eid = positiveInt(pos[0], 'entry id');
    return withLock(ctx.file, () => {
      const { ledger } = load(ctx.file);
      const entry = ledger.entries.find((e) => e.id === eid);
      if (!entry) throw notFound(`entry not found: ${eid}`);
      const gone = entry.transfer
        ? ledger.entries.filter((e) => e.transfer === entry.transfer)
        : [entry];
      const ids = new Set(gone.map((e) => e.id));
      ledger.entries = ledger.entries.filter((e) => !ids.has(e.id));
      save(ctx.file, ledger);
      const balances = {};
      for (const e of gone) balances[e.account] = money(balanceOf(ledger, e.account));
      return {
        data: { deleted: gone.map(entryOut), balances },
        text: `deleted ${gone.map((e) => `#${e.id}`).join(', ')}`,
      };
    });
  },

  transfer(pos, opts, ctx) {
    if (pos.length > 3) throw usage('transfer takes <from> <to> <amount>');
    const from = accountId(pos[0], 'from');
    const to = accountId(pos[1], 'to');
    const amount = cents(pos[2], { positive: true });
    if (from === to) throw usage('cannot transfer to the same account');
    const memo = opts['--memo'] ?? `transfer ${from} -> ${to}`;
    return withLock(ctx.file, () => {
      const { ledger } = load(ctx.file);
      mustAccount(ledger, from);
      mustAccount(ledger, to);
      const have = balanceOf(ledger, from);
      if (have < amount) throw refused(`insufficient funds in ${from}: balance ${fmt(have)}, transfer ${fmt(amount)}`);
      const at = nowIso();
      const tid = `t${ledger.next_id}`;
      const out = { id: ledger.next_id++, account: from, amount_cents: -amount, memo, at, transfer: tid };
      const inn = { id: ledger.next_id++, account: to, amount_cents: amount, memo, at, transfer: tid };
      ledger.entries.push(out, inn);
      save(ctx.file, ledger);
      const balances = { [from]: money(balanceOf(ledger, from)), [to]: money(balanceOf(ledger, to)) };
      return {
        data: { transfer: { id: tid, from, to, amount: money(amount), memo, entries: [out.id, inn.id] }, balances },
        text: `moved ${fmt(amount)} ${from} -> ${to}; ${from} ${fmt(balanceOf(ledger, from))}, ${to} ${fmt(balanceOf(ledger, to))}`,
      };
    });
  },

  doctor(pos, opts, ctx) {
    if (pos.length) throw usage('doctor takes no arguments');
    const checks = [];
    let exists = false;
    let ledger = null;
    try {
      const r = load(ctx.file);
      exists = r.exists;
      ledger = r.ledger;
      checks.push({ check: 'file', ok: true, detail: exists ? 'readable' : 'missing (starts empty on first write)' });
    } catch (e) {
      exists = fs.existsSync(ctx.file);
      checks.push({ check: 'file', ok: false, detail: e.message });
    }
    if (ledger) {
      const orphans = ledger.entries.filter((e) => !ledger.accounts[e.account]).length;
      checks.push({ check: 'entries', ok: orphans === 0, detail: orphans ? `${orphans} entries reference unknown accounts` : 'consistent' });
    }
    const dirOk = (() => { try { fs.accessSync(path.dirname(ctx.file), fs.constants.W_OK); return true; } catch { return false; } })();
    checks.push({ check: 'writable', ok: dirOk, detail: dirOk ? 'directory writable' : 'directory not writable' });
    // Binding demo: the token is accepted, never printed.
    checks.push({ check: 'token', ok: true, detail: process.env.LEDGER_TOKEN ? 'LEDGER_TOKEN present' : 'LEDGER_TOKEN not set (not required)' });
    const healthy = checks.every((c) => c.ok);
    const data = {
      healthy,
      file: path.basename(ctx.file),
      exists,
      accounts: ledger ? Object.keys(ledger.accounts).length : 0,
      entries: ledger ? ledger.entries.length : 0,
      checks,
    };
    const text = checks.map((c) => `${c.ok ? 'ok  ' : 'FAIL'} ${c.check}: ${c.detail}`).join('\n');
    return { data, text, exitCode: healthy ? 0 : 1 };
  },
};

function dispatch(pos) {
  const [a, b] = pos;
  if (a === 'account' || a === 'entry') {
    if (b === undefined) throw usageFull(`missing subcommand after "${a}"`);
    const key = `${a} ${b}`;
    if (!commands[key]) throw usageFull(`unknown command: ${key}`);
    return { key, rest: pos.slice(2) };
  }
  if (a === undefined) throw usageFull('missing command');
  if (!Object.hasOwn(commands, a) || a.includes(' ')) throw usageFull(`unknown command: ${a}`);
  return { key: a, rest: pos.slice(1) };
}

function main(argv) {
  let json = process.env.LEDGER_OUTPUT === 'json';
  try {
    const { pos, opts } = parseArgv(argv);
    if (opts['--json']) json = true;
    if (opts['--help'] || opts['-h']) {
      process.stdout.write(json ? JSON.stringify({ usage: USAGE }) + '\n' : USAGE + '\n');
      return 0;
    }
    const { key, rest } = dispatch(pos);
    const allowed = {
      accounts: [], balance: [], entries: ['--limit'], 'account open': ['--name'],
      'entry add': ['--memo'], 'entry delete': [], transfer: ['--memo'], doctor: [],
    }[key];
    for (const k of Object.keys(opts)) {
      if (['--json', '--file'].includes(k)) continue;
      if (!allowed.includes(k)) throw usage(`option ${k} does not apply to "${key}"`);
    }
    const ctx = { file: ledgerFile(opts) };
    const r = commands[key](rest, opts, ctx);
    process.stdout.write((json ? JSON.stringify(r.data) : r.text) + '\n');
    return r.exitCode ?? 0;
  } catch (e) {
    if (!(e instanceof CliError)) {
      process.stderr.write(`ledger: internal error: ${e && e.message}\n`);
      return 70;
    }
    process.stderr.write(`ledger: ${e.message}\n`);
    return e.exitCode;
  }
}

process.exitCode = main(process.argv.slice(2));
