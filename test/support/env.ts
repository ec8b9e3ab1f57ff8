// Every test's child processes (the CLI, bins, servers: most of `npm test`'s
// CPU) start without NODE_EXTRA_CA_CERTS. With it set (as on this machine and
// many CI images), each Node process parses the whole CA bundle at start:
// ~55 ms CPU more for `node -e 0` (85 against 30 ms), ~65 ms more for an
// `hcpx adopt`. The tests talk to 127.0.0.1 over plain HTTP only (no TLS, no
// CA), so nothing they prove depends on it; the bench measures both ways.
delete process.env.NODE_EXTRA_CA_CERTS;
