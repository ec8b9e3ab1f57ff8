#!/usr/bin/env node
// notes — a tiny note store in one JSON file, the bin behind the pass_through example pack.
// Zero dependencies (node: builtins only). Never prompts.
//
//   notes list [--tag TAG]               all notes (id, title, tags), oldest first
//   notes show <id>                      one note with its body
//   notes search <word> [word…]          notes whose title/body/tags contain every word
//   notes add <title> [body…] [--tag T]  add a note; body words are joined with spaces
//   notes tags                           tags with counts
//   notes delete <id>                    delete a note (deliberately NOT in the pack's allow-list)
//
// Options: --json (or env NOTES_OUTPUT=json) prints exactly one JSON value on stdout.
// File: env NOTES_FILE, else ./notes.json. NOTES_SEED=1 seeds a missing file with 3 notes.
// Exit codes: 0 ok, 1 usage / not found, 3 notes file unreadable or corrupt.
import fs from 'node:fs';
import path from 'node:path';

const USAGE = `usage: notes <list|show|search|add|tags|delete> [args] [--tag T] [--json]`;

class CliError extends Error {
  constructor(message, exitCode = 1) { super(message); this.exitCode = exitCode; }
}

function parseArgv(argv) {
  const pos = [];
  const opts = { tags: [] };
  let rest = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (rest) { pos.push(a); continue; }
    if (a === '--') { rest = true; continue; }
    if (a === '--json') { opts.json = true; continue; }
    if (a === '--tag' || a.startsWith('--tag=')) {
      const v = a.startsWith('--tag=') ? a.slice(6) : argv[++i];
      if (v === undefined || !/^[a-z0-9][a-z0-9_-]{0,31}$/.test(v)) throw new CliError(`--tag needs a lowercase word`);
      opts.tags.push(v);
      continue;
    }
    if (a.startsWith('-') && a.length > 1) throw new CliError(`unknown option: ${a}\n${USAGE}`);
    pos.push(a);
  }
  return { pos, opts };
}

const file = () => path.resolve(process.env.NOTES_FILE || 'notes.json');
const SEED = {
  next_id: 4,
  notes: [
    { id: 1, title: 'Groceries', body: 'milk, eggs, bread', tags: ['shopping'], at: '2026-01-05T09:00:00.000Z' },
    { id: 2, title: 'Call the plumber', body: 'kitchen sink drips; ask about Tuesday', tags: ['home'], at: '2026-01-06T10:30:00.000Z' },
    { id: 3, title: 'Book ideas', body: 'The Dispossessed; Piranesi', tags: ['reading'], at: '2026-01-07T20:15:00.000Z' },
  ],
};

function load() {
  let text;
  try {
    text = fs.readFileSync(file(), 'utf8');
  } catch (e) {
    if (e.code === 'ENOENT') return process.env.NOTES_SEED === '1' ? structuredClone(SEED) : { next_id: 1, notes: [] };
    throw new CliError(`cannot read notes file: ${e.code}`, 3);
  }
  if (!text.trim()) return { next_id: 1, notes: [] };
  try {
    const d = JSON.parse(text);
    if (!Array.isArray(d.notes) || !Number.isInteger(d.next_id)) throw new Error('want notes[] and next_id');
    return d;
  } catch (e) {
    throw new CliError(`notes file is corrupt: ${e.message}`, 3);
  }
}

function save(d) {
  const f = file();
  const tmp = path.join(path.dirname(f), `.${path.basename(f)}.${process.pid}.${Date.now()}.tmp`);
  fs.writeFileSync(tmp, JSON.stringify(d, null, 2) + '\n');
  fs.renameSync(tmp, f);
}

function noteId(s) {
  if (s === undefined) throw new CliError(`missing <id>\n${USAGE}`);
  if (!/^\d{1,9}$/.test(s)) throw new CliError(`bad note id "${s}"`);
  return Number(s);
}
const brief = (n) => ({ id: n.id, title: n.title, tags: n.tags });
const line = (n) => `#${n.id} ${n.title}${n.tags.length ? `  [${n.tags.join(', ')}]` : ''}`;

const commands = {
  list(pos, opts) {
    if (pos.length) throw new CliError(`list takes no arguments (use --tag)`);
    const d = load();
    const notes = d.notes.filter((n) => opts.tags.every((t) => n.tags.includes(t))).map(brief);
    return { data: { notes }, text: notes.length ? notes.map(line).join('\n') : 'no notes' };
  },
  show(pos) {
    if (pos.length !== 1) throw new CliError(`show takes one <id>`);
    const id = noteId(pos[0]);
    const n = load().notes.find((x) => x.id === id);
    if (!n) throw new CliError(`note not found: ${id}`);
    return { data: { note: n }, text: `${line(n)}\n${n.body}` };
  },
  search(pos, opts) {
    if (!pos.length) throw new CliError(`search needs at least one <word>`);
    const words = pos.map((w) => w.toLowerCase());
    const notes = load().notes
      .filter((n) => opts.tags.every((t) => n.tags.includes(t)))
      .filter((n) => {
        const hay = `${n.title}\n${n.body}\n${n.tags.join(' ')}`.toLowerCase();
        return words.every((w) => hay.includes(w));
      })
      .map(brief);
    return { data: { query: pos, notes }, text: notes.length ? notes.map(line).join('\n') : 'no match' };
  },
  add(pos, opts) {
    if (!pos.length || !pos[0].trim()) throw new CliError(`add needs a <title>`);
    const d = load();
    const n = { id: d.next_id++, title: pos[0], body: pos.slice(1).join(' '), tags: [...new Set(opts.tags)].sort(), at: new Date().toISOString() };
    d.notes.push(n);
    save(d);
    return { data: { note: n }, text: `added ${line(n)}` };
  },
  tags(pos) {
    if (pos.length) throw new CliError(`tags takes no arguments`);
    const counts = {};
    for (const n of load().notes) for (const t of n.tags) counts[t] = (counts[t] || 0) + 1;
    const tags = Object.keys(counts).sort().map((t) => ({ tag: t, notes: counts[t] }));
    return { data: { tags }, text: tags.length ? tags.map((t) => `${t.tag} (${t.notes})`).join('\n') : 'no tags' };
  },
  delete(pos) {
    if (pos.length !== 1) throw new CliError(`delete takes one <id>`);
    const id = noteId(pos[0]);
    const d = load();
    const n = d.notes.find((x) => x.id === id);
    if (!n) throw new CliError(`note not found: ${id}`);
    d.notes = d.notes.filter((x) => x.id !== id);
    save(d);
    return { data: { deleted: n }, text: `deleted ${line(n)}` };
  },
};

function main(argv) {
  let json = process.env.NOTES_OUTPUT === 'json';
  try {
    const { pos, opts } = parseArgv(argv);
    if (opts.json) json = true;
    const [cmd, ...rest] = pos;
    if (cmd === undefined) throw new CliError(`missing command\n${USAGE}`);
    if (!Object.hasOwn(commands, cmd)) throw new CliError(`unknown command: ${cmd}\n${USAGE}`);
    if (opts.tags.length && !['list', 'search', 'add'].includes(cmd)) throw new CliError(`--tag does not apply to "${cmd}"`);
    const r = commands[cmd](rest, opts);
    process.stdout.write((json ? JSON.stringify(r.data) : r.text) + '\n');
    return 0;
  } catch (e) {
    if (!(e instanceof CliError)) {
      process.stderr.write(`notes: internal error: ${e && e.message}\n`);
      return 70;
    }
    process.stderr.write(`notes: ${e.message}\n`);
    return e.exitCode;
  }
}

process.exitCode = main(process.argv.slice(2));
