#!/usr/bin/env node
// todo-server — an in-memory HTTP server implementing packs/todo/openapi.json, for tests
// and demos of the openapi pack. Zero dependencies (node:http). Listens on 127.0.0.1 only.
//
//   node bins/todo-server.mjs [--port N] [--empty]
//
// Port: --port N, else env TODO_SERVER_PORT, else 8080 (the pack's base_url). 0 picks a
// free port. When listening it prints the port number alone on one stdout line.
// Auth: when env TODO_SERVER_TOKEN is set, every request needs
// `Authorization: Bearer <that token>` (else 401). The token is never logged.
// Data: starts with 3 todos (ids 1-3) unless --empty. Stops on SIGTERM/SIGINT or when
// stdin closes with --exit-on-stdin-close.
// Also serves GET /openapi.json and GET /healthz (no auth).
import http from 'node:http';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { timingSafeEqual } from 'node:crypto';

const argv = process.argv.slice(2);
function opt(name) {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  const eq = argv.find((a) => a.startsWith(`${name}=`));
  return eq ? eq.slice(name.length + 1) : undefined;
}
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--port') { i++; continue; }
  if (a.startsWith('--port=') || a === '--empty' || a === '--exit-on-stdin-close') continue;
  process.stderr.write(`todo-server: unknown argument: ${a}\nusage: todo-server [--port N] [--empty] [--exit-on-stdin-close]\n`);
  process.exit(1);
}
const portArg = opt('--port') ?? process.env.TODO_SERVER_PORT ?? '8080';
if (!/^\d{1,5}$/.test(portArg) || Number(portArg) > 65535) {
  process.stderr.write(`todo-server: bad port: ${portArg}\n`);
  process.exit(1);
}
const TOKEN = process.env.TODO_SERVER_TOKEN || '';

let nextId = 1;
const todos = new Map();
function insert(t) {
  const todo = { id: nextId++, title: t.title, done: !!t.done, due: t.due ?? null };
  todos.set(todo.id, todo);
  return todo;
}
if (!argv.includes('--empty')) {
  insert({ title: 'Buy milk', due: '2026-12-01' });
  insert({ title: 'Write the quarterly report', done: true });
  insert({ title: 'Call the plumber' });
}

const docPath = fileURLToPath(new URL('../packs/todo/openapi.json', import.meta.url));

function send(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
const fail = (res, status, code, message, headers) => send(res, status, { error: { code, message } }, headers);

function authorized(req) {
  if (!TOKEN) return true;
  const h = req.headers.authorization || '';
  const m = /^Bearer (.+)$/.exec(h);
  if (!m) return false;
  const a = Buffer.from(m[1]);
  const b = Buffer.from(TOKEN);
  return a.length === b.length && timingSafeEqual(a, b);
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > 64 * 1024) { reject(Object.assign(new Error('body too large'), { status: 413 })); req.destroy(); return; }
      chunks.push(c);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (!text.trim()) return resolve(undefined);
      try { resolve(JSON.parse(text)); } catch { reject(Object.assign(new Error('body is not valid JSON'), { status: 400 })); }
    });
    req.on('error', reject);
  });
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
function checkTitle(t) {
  return typeof t === 'string' && t.trim().length >= 1 && t.length <= 200;
}

async function handle(req, res) {
  const url = new URL(req.url, 'http://127.0.0.1');
  const p = url.pathname.replace(/\/+$/, '') || '/';
  if (req.method === 'GET' && p === '/healthz') return send(res, 200, { ok: true });
  if (req.method === 'GET' && p === '/openapi.json') {
    const text = fs.readFileSync(docPath, 'utf8');
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    return res.end(text);
  }
  if (!authorized(req)) return fail(res, 401, 'unauthorized', 'missing or wrong bearer token', { 'www-authenticate': 'Bearer' });

  if (p === '/todos') {
    if (req.method === 'GET') {
      let list = [...todos.values()];
      const done = url.searchParams.get('done');
      if (done !== null) {
        if (done !== 'true' && done !== 'false') return fail(res, 400, 'bad_request', 'done must be true or false');
        list = list.filter((t) => t.done === (done === 'true'));
      }
      const total = list.length;
      const limit = url.searchParams.get('limit');
      if (limit !== null) {
        if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > 100) return fail(res, 400, 'bad_request', 'limit must be an integer from 1 to 100');
        list = list.slice(0, Number(limit));
      }
      return send(res, 200, { todos: list, total });
    }
    if (req.method === 'POST') {
      const body = await readJson(req);
      if (!body || typeof body !== 'object' || Array.isArray(body)) return fail(res, 400, 'bad_request', 'body must be a JSON object');
      const extra = Object.keys(body).filter((k) => !['title', 'due'].includes(k));
      if (extra.length) return fail(res, 400, 'bad_request', `unknown field: ${extra[0]}`);
      if (!checkTitle(body.title)) return fail(res, 400, 'bad_request', 'title is required: 1-200 characters');
      if (body.due !== undefined && body.due !== null && (typeof body.due !== 'string' || !DATE_RE.test(body.due))) return fail(res, 400, 'bad_request', 'due must be YYYY-MM-DD');
      const todo = insert({ title: body.title, due: body.due ?? null });
      return send(res, 201, todo, { location: `/todos/${todo.id}` });
    }
    return fail(res, 405, 'method_not_allowed', `${req.method} not allowed on /todos`, { allow: 'GET, POST' });
  }

  const m = /^\/todos\/([^/]+)$/.exec(p);
  if (m) {
    if (!/^\d{1,9}$/.test(m[1])) return fail(res, 400, 'bad_request', 'id must be a positive integer');
    const id = Number(m[1]);
    const todo = todos.get(id);
    if (!['GET', 'PATCH', 'DELETE'].includes(req.method)) return fail(res, 405, 'method_not_allowed', `${req.method} not allowed on /todos/{id}`, { allow: 'GET, PATCH, DELETE' });
    if (!todo) return fail(res, 404, 'not_found', `todo ${id} not found`);
    if (req.method === 'GET') return send(res, 200, todo);
    if (req.method === 'DELETE') {
      todos.delete(id);
      return send(res, 200, { deleted: todo });
    }
    const body = await readJson(req);
    if (!body || typeof body !== 'object' || Array.isArray(body)) return fail(res, 400, 'bad_request', 'body must be a JSON object');
    const extra = Object.keys(body).filter((k) => !['title', 'done'].includes(k));
    if (extra.length) return fail(res, 400, 'bad_request', `unknown field: ${extra[0]}`);
    if (body.title === undefined && body.done === undefined) return fail(res, 400, 'bad_request', 'give title or done');
    if (body.title !== undefined && !checkTitle(body.title)) return fail(res, 400, 'bad_request', 'title must be 1-200 characters');
    if (body.done !== undefined && typeof body.done !== 'boolean') return fail(res, 400, 'bad_request', 'done must be a boolean');
    if (body.title !== undefined) todo.title = body.title;
    if (body.done !== undefined) todo.done = body.done;
    return send(res, 200, todo);
  }
  return fail(res, 404, 'not_found', `no route for ${req.method} ${p}`);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((e) => {
    if (res.headersSent) { res.destroy(); return; }
    fail(res, e.status || 500, e.status ? 'bad_request' : 'internal', e.message);
  });
});
server.keepAliveTimeout = 1000;

server.on('error', (e) => {
  process.stderr.write(`todo-server: cannot listen on 127.0.0.1:${portArg}: ${e.code || e.message}\n`);
  process.exit(1);
});
server.listen(Number(portArg), '127.0.0.1', () => {
  process.stdout.write(`${server.address().port}\n`);
});

function stop() {
  server.close(() => process.exit(0));
  server.closeAllConnections?.();
  setTimeout(() => process.exit(0), 500).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
if (argv.includes('--exit-on-stdin-close')) {
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
}
