// A real OpenID provider for the console's sign-in tests: panva's certified `oidc-provider` 9.13.3
// (installed by tests/peers/install.sh into $PEERS_DIR/oidc), on 127.0.0.1 with a random port.
//
// Run:  node tests/peers/oidc_provider.mjs [--access-ttl SECS]
// Prints one line: "oidc provider on http://127.0.0.1:P resource http://127.0.0.1:Q".
// Exits when stdin closes (like the other peers).
//
// What it sets up:
// - issuer http://127.0.0.1:P, a fresh ES256 signing key per start (no dev key);
// - one public native client "a2a-console" (no secret, so PKCE is required by the provider), whose
//   redirect URI http://127.0.0.1/callback matches any loopback port (RFC 8252 §7.3; the provider strips
//   the port for native clients' loopback redirects);
// - refresh tokens when `offline_access` is granted, access tokens as JWTs for the resource below
//   (resource indicators, audience "urn:a2a-console:test-agent", scope `agent:use`);
// - the provider's own dev login/consent pages (`devInteractions`), which a test drives with plain HTTP:
//   POST /interaction/UID prompt=login&login=NAME, then prompt=consent; GET /interaction/UID/abort refuses.
// - a second server on port Q, a protected resource: GET /whoami with a bearer access token answers the
//   token's subject after checking its signature against the provider's JWKS, its issuer and audience;
//   anything else is 401. Every request it sees is counted: GET /seen answers how many carried an
//   Authorization header (so a test can show a token never went there).

import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const PEERS_DIR = process.env.PEERS_DIR || resolve(HERE, '../../target/peers');
const mod = (p) => pathToFileURL(join(PEERS_DIR, 'oidc', 'node_modules', p)).href;
const { default: Provider } = await import(mod('oidc-provider/lib/index.js'));
const jose = await import(mod('jose/dist/webapi/index.js'));

const AUDIENCE = 'urn:a2a-console:test-agent';

function parseArgs(argv) {
  const out = { accessTtl: 300 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--access-ttl') out.accessTtl = Number(argv[++i]);
    else {
      console.error(`unknown argument: ${argv[i]}`);
      process.exit(2);
    }
  }
  if (!Number.isInteger(out.accessTtl) || out.accessTtl < 1) {
    console.error('--access-ttl needs a positive integer');
    process.exit(2);
  }
  return out;
}
const args = parseArgs(process.argv.slice(2));

const listen = (server) =>
  new Promise((res) => server.listen(0, '127.0.0.1', () => res(server.address().port)));

// The provider needs its issuer before it can serve, so the port is taken first.
const providerHttp = createServer();
const port = await listen(providerHttp);
const issuer = `http://127.0.0.1:${port}`;

const { privateKey } = await jose.generateKeyPair('ES256', { extractable: true });
const signingKey = { ...(await jose.exportJWK(privateKey)), kid: 'test-es256', alg: 'ES256', use: 'sig' };

const accounts = {
  alice: { sub: 'alice', email: 'alice@example.test', email_verified: true, name: 'Alice Tester' },
};

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: 'a2a-console',
      application_type: 'native',
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ES256',
    },
  ],
  jwks: { keys: [signingKey] },
  cookies: { keys: ['a2a-console-test-cookie-key'] },
  scopes: ['openid', 'offline_access', 'email', 'profile'],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  async findAccount(_ctx, id) {
    const known = accounts[id] || { sub: id };
    return { accountId: id, async claims() { return { ...known, sub: id }; } };
  },
  features: {
    devInteractions: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => AUDIENCE,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => {
        if (indicator !== AUDIENCE) throw new Error('unknown resource');
        return {
          scope: 'agent:use',
          audience: AUDIENCE,
          accessTokenTTL: args.accessTtl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
  },
  ttl: {
    AccessToken: () => args.accessTtl,
    AuthorizationCode: 60,
    IdToken: 600,
    Interaction: 600,
    Grant: 3600,
    Session: 3600,
    RefreshToken: 3600,
  },
});
// Keep the provider's own warnings about dev settings off stderr noise: they are expected here.
provider.on('server_error', (_ctx, err) => console.error('provider error:', err));
providerHttp.on('request', provider.callback());

// ---- the protected resource --------------------------------------------------------------------
// The public half of the signing key: the resource checks tokens the way any resource server would.
const { d: _private, ...publicKey } = signingKey;
const jwks = jose.createLocalJWKSet({ keys: [publicKey] });
// The agent in front of the resource: its card declares the provider (OpenID Connect), and its JSON-RPC
// endpoint accepts only a valid access token. It runs no agent: a verified call is answered with a JSON-RPC
// error naming whose token it verified, which is all a sign-in test needs to see.
let resourcePort = 0; // set once the resource listens (below); read at request time
const elsewhere = createServer((req, res) => {
  if (req.url === '/seen') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ with_authorization: elsewhereWithAuth, requests: elsewhereRequests }));
    return;
  }
  elsewhereRequests += 1;
  if (req.headers.authorization) elsewhereWithAuth += 1;
  res.writeHead(401, { 'www-authenticate': 'Bearer' });
  res.end();
});
let elsewhereRequests = 0;
let elsewhereWithAuth = 0;
const elsewherePort = await listen(elsewhere);

const card = (interfaceUrl) => ({
  name: 'oidc-protected agent',
  description: 'An agent that needs a person signed in with OpenID Connect.',
  version: '1.0.0',
  supportedInterfaces: [{ url: interfaceUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
  capabilities: { streaming: false },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'whoami', name: 'Who am I', description: 'Says whose token it verified.', tags: ['auth'] }],
  securitySchemes: {
    people: { openIdConnectSecurityScheme: { openIdConnectUrl: `${issuer}/.well-known/openid-configuration` } },
  },
  securityRequirements: [{ people: ['agent:use', 'email', 'profile'] }],
});

const verify = async (auth) => {
  if (!auth?.startsWith('Bearer ')) return null;
  try {
    const { payload } = await jose.jwtVerify(auth.slice(7), jwks, { issuer, audience: AUDIENCE });
    return payload;
  } catch {
    return null;
  }
};

const json = (res, status, body, headers = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

const resource = createServer(async (req, res) => {
  const self = `http://127.0.0.1:${resourcePort}`;
  if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
    return json(res, 200, card(`${self}/a2a/jsonrpc`));
  }
  // The same agent, but its card puts the endpoint on another origin: a token must never go there.
  if (req.method === 'GET' && req.url === '/elsewhere/.well-known/agent-card.json') {
    return json(res, 200, card(`http://127.0.0.1:${elsewherePort}/a2a/jsonrpc`));
  }
  const payload = await verify(req.headers.authorization);
  if (req.method === 'GET' && req.url === '/whoami') {
    if (!payload) return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
    return json(res, 200, { sub: payload.sub, scope: payload.scope });
  }
  if (req.method === 'POST' && req.url === '/a2a/jsonrpc') {
    if (!payload) return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
    let body = '';
    for await (const chunk of req) body += chunk;
    let id = null;
    try { id = JSON.parse(body).id ?? null; } catch { /* answered below with id null */ }
    return json(res, 200, {
      jsonrpc: '2.0',
      id,
      error: { code: -32601, message: `verified the token of ${payload.sub} (scope ${payload.scope}); this resource runs no agent` },
    });
  }
  json(res, 404, { error: 'not found' });
});
resourcePort = await listen(resource);

console.log(`oidc provider on ${issuer} resource http://127.0.0.1:${resourcePort} elsewhere http://127.0.0.1:${elsewherePort}`);

const shutdown = () => {
  providerHttp.close();
  resource.close();
  elsewhere.close();
  process.exit(0);
};
process.stdin.on('end', shutdown);
process.stdin.on('close', shutdown);
process.stdin.on('error', shutdown);
process.stdin.resume();
