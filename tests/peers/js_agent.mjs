// A2A v1.0 interoperability peer built on the official JS SDK (@a2a-js/sdk 1.3.0 + express).
//
// Run:  node tests/peers/js_agent.mjs --port 0
// Needs tests/peers/install.sh to have run; packages are loaded from
// $PEERS_DIR/js (default <repo>/target/peers/js).
// Serves JSON-RPC at /a2a/jsonrpc and HTTP+JSON at /a2a/rest (protocol 1.0).
// With --with-v03 both endpoints also accept v0.3 requests (SDK compat
// layer) and the card additionally lists 0.3 interfaces.
// With --sign ES256|RS256|PS256 the card is signed at start with a fresh key by
// the SDK's generateAgentCardSignature (jose); the JWKS is served at
// /.well-known/jwks.json (and written to --jwks-out PATH).
// Scenarios: see tests/peers/README.md.

import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const PEERS_DIR = process.env.PEERS_DIR || resolve(HERE, '../../target/peers');
const { sdk, server, serverExpress, express, jose } = await import(
  pathToFileURL(join(PEERS_DIR, 'js', 'deps.mjs')).href
);

const TOKEN = 'peer-secret';
const JSONRPC_PATH = '/a2a/jsonrpc';
const REST_PATH = '/a2a/rest';
const SLOW_TICKS = 120; // 120 x 0.5 s = 60 s
const SLOW_INTERVAL_MS = 500;
const CHUNK_INTERVAL_MS = 50;
const EXTENDED_CARD_METHODS = new Set(['GetExtendedAgentCard', 'agent/getAuthenticatedExtendedCard']);
const EXTENDED_CARD_PATH_SUFFIXES = ['/extendedAgentCard', '/v1/card', '/agent/authenticatedExtendedCard'];

// ---- command line ---------------------------------------------------------
function parseArgs(argv) {
  const out = { port: 0, ignoreStdin: false, withV03: false, sdkRawCard: false, sign: null, jwksOut: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--port') out.port = Number(argv[++i]);
    else if (a.startsWith('--port=')) out.port = Number(a.slice(7));
    else if (a === '--ignore-stdin') out.ignoreStdin = true;
    else if (a === '--with-v03') out.withV03 = true;
    else if (a === '--sdk-raw-card') out.sdkRawCard = true;
    else if (a === '--sign') out.sign = argv[++i];
    else if (a === '--jwks-out') out.jwksOut = argv[++i];
    else {
      console.error(`unknown argument: ${a}`);
      process.exit(2);
    }
  }
  if (out.sign !== null && !['ES256', 'RS256', 'PS256'].includes(out.sign)) {
    console.error('--sign takes ES256, RS256 or PS256');
    process.exit(2);
  }
  if (!Number.isInteger(out.port) || out.port < 0 || out.port > 65535) {
    console.error('--port needs an integer 0..65535');
    process.exit(2);
  }
  return out;
}
const args = parseArgs(process.argv.slice(2));

// ---- helpers ---------------------------------------------------------------
const sleep = (ms, signal) =>
  new Promise((res) => {
    const t = setTimeout(res, ms);
    signal?.addEventListener('abort', () => { clearTimeout(t); res(); }, { once: true });
  });

const userText = (message) =>
  (message?.parts ?? [])
    .filter((p) => p.content?.$case === 'text')
    .map((p) => p.content.value)
    .join('\n');

const firstWord = (text) => (text.trim().split(/\s+/, 1)[0] || '').toLowerCase();
const now = () => new Date().toISOString();

const agentMessage = (text, contextId, taskId) =>
  sdk.Message.fromJSON({
    messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text }],
    ...(contextId ? { contextId } : {}), ...(taskId ? { taskId } : {}),
  });

const statusEvent = (taskId, contextId, state, message) =>
  server.AgentEvent.statusUpdate(sdk.TaskStatusUpdateEvent.fromJSON({
    taskId, contextId,
    status: { state, timestamp: now(), ...(message ? { message: sdk.Message.toJSON(message) } : {}) },
  }));

const artifactEvent = (taskId, contextId, artifact, append, lastChunk) =>
  server.AgentEvent.artifactUpdate(sdk.TaskArtifactUpdateEvent.fromJSON({
    taskId, contextId, artifact,
    ...(append ? { append: true } : {}), ...(lastChunk ? { lastChunk: true } : {}),
  }));

// ---- the agent ---------------------------------------------------------------
class PeerExecutor {
  constructor() {
    this.running = new Map(); // taskId -> { contextId, abort: AbortController }
  }

  async execute(ctx, bus) {
    const message = ctx.userMessage;
    const text = userText(message);
    const { taskId, contextId } = ctx;
    const current = ctx.task;
    const publish = (ev) => bus.publish(ev);

    // Continuation of an `ask` task (the SDK wants a `task` event first on every turn).
    if (current && current.status?.state === sdk.TaskState.TASK_STATE_INPUT_REQUIRED) {
      publish(server.AgentEvent.task(current));
      publish(statusEvent(taskId, contextId, 'TASK_STATE_WORKING'));
      publish(artifactEvent(taskId, contextId, {
        artifactId: 'greeting', name: 'greeting', parts: [{ text: `Nice to meet you, ${text}` }],
      }));
      publish(statusEvent(taskId, contextId, 'TASK_STATE_COMPLETED'));
      return;
    }

    const word = firstWord(text);
    if (word === 'message' && !current) {
      publish(server.AgentEvent.message(agentMessage('direct reply', contextId)));
      return;
    }

    publish(server.AgentEvent.task(current ?? sdk.Task.fromJSON({
      id: taskId, contextId,
      status: { state: 'TASK_STATE_SUBMITTED', timestamp: now() },
      history: [sdk.Message.toJSON(message)],
    })));

    const abort = new AbortController();
    this.running.set(taskId, { contextId, abort });
    try {
      if (word === 'stream') {
        publish(statusEvent(taskId, contextId, 'TASK_STATE_WORKING'));
        for (let i = 0; i < 10; i++) {
          if (i) await sleep(CHUNK_INTERVAL_MS, abort.signal);
          if (abort.signal.aborted) return;
          publish(artifactEvent(taskId, contextId,
            { artifactId: 'story', name: 'story', parts: [{ text: `chunk ${i} ` }] }, i > 0, i === 9));
        }
        publish(statusEvent(taskId, contextId, 'TASK_STATE_COMPLETED'));
      } else if (word === 'ask') {
        publish(statusEvent(taskId, contextId, 'TASK_STATE_INPUT_REQUIRED',
          agentMessage('What is your name?', contextId, taskId)));
      } else if (word === 'slow') {
        publish(statusEvent(taskId, contextId, 'TASK_STATE_WORKING'));
        for (let i = 1; i <= SLOW_TICKS; i++) {
          await sleep(SLOW_INTERVAL_MS, abort.signal);
          if (abort.signal.aborted) return;
          publish(statusEvent(taskId, contextId, 'TASK_STATE_WORKING',
            agentMessage(`tick ${i}/${SLOW_TICKS}`, contextId, taskId)));
        }
        publish(statusEvent(taskId, contextId, 'TASK_STATE_COMPLETED'));
      } else if (word === 'fail') {
        publish(statusEvent(taskId, contextId, 'TASK_STATE_FAILED',
          agentMessage('Scenario failure requested', contextId, taskId)));
      } else if (word === 'code') {
        // A text part and a data part in one artifact (the suites' JSONPath checks read the data).
        publish(statusEvent(taskId, contextId, 'TASK_STATE_WORKING'));
        publish(artifactEvent(taskId, contextId, {
          artifactId: 'code', name: 'code',
          parts: [{ text: '# Fibonacci\n', mediaType: 'text/markdown' },
                  { data: { language: 'javascript', tests: { passed: 3 } }, mediaType: 'application/json' }],
        }));
        publish(statusEvent(taskId, contextId, 'TASK_STATE_COMPLETED'));
      } else { // echo and anything unrecognised
        publish(statusEvent(taskId, contextId, 'TASK_STATE_WORKING'));
        publish(artifactEvent(taskId, contextId,
          { artifactId: 'echo', name: 'echo', parts: [{ text: `echo: ${text}` }] }));
        publish(statusEvent(taskId, contextId, 'TASK_STATE_COMPLETED'));
      }
    } finally {
      this.running.delete(taskId);
    }
  }

  async cancelTask(taskId, bus) {
    const run = this.running.get(taskId);
    if (!run) return; // nothing running here: the SDK marks the task canceled itself
    run.abort.abort();
    bus.publish(statusEvent(taskId, run.contextId, 'TASK_STATE_CANCELED',
      agentMessage('Canceled on request', run.contextId, taskId)));
  }
}

// ---- cards -------------------------------------------------------------------
function buildCards(base) {
  const interfaces = [
    { url: base + JSONRPC_PATH, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: base + REST_PATH, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ];
  if (args.withV03) {
    interfaces.push(
      { url: base + JSONRPC_PATH, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: base + REST_PATH, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    );
  }
  const skill = (id, name, description, examples) => ({ id, name, description, tags: ['test'], examples });
  const skills = [
    skill('echo', 'Echo', 'Echoes the text back as an artifact named "echo".', ['echo hello']),
    skill('stream', 'Stream', 'Streams an artifact in 10 chunks.', ['stream']),
    skill('ask', 'Ask', 'Asks for your name (input-required), then greets you.', ['ask']),
    skill('slow', 'Slow', 'Works for 60 s with a status update every 0.5 s; cancelable.', ['slow']),
    skill('fail', 'Fail', 'Fails the task on purpose.', ['fail']),
    skill('message', 'Message', 'Answers with a direct message instead of a task.', ['message']),
  ];
  const card = {
    name: 'JS v1.0 peer',
    description: 'Interop test peer built on the official @a2a-js/sdk 1.3.0 (express).',
    supportedInterfaces: interfaces,
    provider: { organization: 'a2a-console tests', url: 'https://example.invalid/a2a-console' },
    version: '1.3.0',
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: 'Static test token "peer-secret" (extended card only)' } },
    },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills,
  };
  const extended = {
    ...card,
    name: 'JS v1.0 peer (extended)',
    skills: [...skills, skill('secret-skill', 'Secret skill', 'Only listed on the authenticated extended card.', [])],
  };
  return [sdk.AgentCard.fromJSON(card), sdk.AgentCard.fromJSON(extended)];
}

// ---- signed card (--sign) ------------------------------------------------------
const JWKS_PATH = '/.well-known/jwks.json';

// Signs the card's JSON form with a fresh key through the SDK's own
// generateAgentCardSignature (jose underneath), and returns the signed card
// and the public JWKS served at JWKS_PATH (the signature's jku).
async function signCard(card, alg, base) {
  const { privateKey, publicKey } = await jose.generateKeyPair(alg, { extractable: true, modulusLength: 2048 });
  const kid = `js-${alg.toLowerCase()}-${randomUUID().slice(0, 8)}`;
  const jwk = { ...(await jose.exportJWK(publicKey)), kid, alg, use: 'sig' };
  const signer = sdk.generateAgentCardSignature(privateKey, { alg, kid, typ: 'JOSE', jku: base + JWKS_PATH });
  const signed = await signer(sdk.AgentCard.toJSON(card));
  return [sdk.AgentCard.fromJSON(signed), { keys: [jwk] }];
}

// ---- auth gate (ours: the SDK does not authenticate) ----------------------------
function bearerOk(req) {
  const h = req.header('authorization') || '';
  const m = /^\s*bearer\s+(.+?)\s*$/i.exec(h);
  return !!m && m[1] === TOKEN;
}

function deny(res) {
  res.status(401)
    .set('WWW-Authenticate', 'Bearer realm="a2a-peer"')
    .type('application/json')
    .send(JSON.stringify({ error: 'unauthorized', message: 'missing or invalid bearer token' }));
}

function authGate() {
  const parseJson = express.json({ limit: '10mb' });
  return (req, res, next) => {
    if (bearerOk(req)) return next();
    if (EXTENDED_CARD_PATH_SUFFIXES.some((s) => req.path.endsWith(s))) return deny(res);
    const ctype = (req.header('content-type') || '').split(';', 1)[0].trim().toLowerCase();
    if (req.method === 'POST' && req.path.replace(/\/+$/, '') === JSONRPC_PATH && ctype === 'application/json') {
      // express.json() marks the body as parsed; the SDK's own parser then skips it.
      return parseJson(req, res, (err) => {
        if (err) {
          // The body stream is consumed now, so the SDK cannot see the error
          // itself; answer exactly as its JSON-RPC handler does for bad JSON
          // (checked with curl on an authenticated request, which skips this gate).
          return res.status(200).json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Invalid JSON payload.' } });
        }
        if (req.body && EXTENDED_CARD_METHODS.has(req.body.method)) return deny(res);
        next();
      });
    }
    next();
  };
}

// ---- server ------------------------------------------------------------------
const app = express();
const httpServer = app.listen(args.port, '127.0.0.1');
httpServer.on('error', (e) => { console.error(`listen failed: ${e.message}`); process.exit(1); });
httpServer.on('listening', async () => {
  const base = `http://127.0.0.1:${httpServer.address().port}`;
  let [card, extended] = buildCards(base);
  if (args.sign) {
    let jwks;
    [card, jwks] = await signCard(card, args.sign, base);
    if (args.jwksOut) writeFileSync(args.jwksOut, JSON.stringify(jwks));
    app.get(JWKS_PATH, (_req, res) => res.type('application/jwk-set+json').send(JSON.stringify(jwks)));
  }
  const pushStore = new server.InMemoryPushNotificationStore();
  const handler = new server.DefaultRequestHandler(
    card, new server.InMemoryTaskStore(), new PeerExecutor(),
    new server.DefaultExecutionEventBusManager(),
    pushStore, new server.DefaultPushNotificationSender(pushStore),
    async () => extended,
  );
  const { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } = serverExpress;
  const legacyCompat = args.withV03 ? { enabled: true } : undefined;
  app.use(authGate());
  // agentCardHandler JSON.stringify()s the provider's card as is. Handing it
  // the request handler (the documented wiring) leaks the SDK's internal
  // object shape (`{"scheme":{"$case":...}}`, empty defaults) for oneof
  // fields such as securitySchemes. Its v0.3 branch (--with-v03), however,
  // needs that internal shape. So we hand it the internal object with a
  // non-enumerable toJSON() giving the ProtoJSON form (not copied by spreads).
  // --sdk-raw-card restores the documented wiring to reproduce the leak.
  const cardProvider = args.sdkRawCard ? handler : async () => {
    const internal = await handler.getAgentCard();
    const copy = { ...internal };
    Object.defineProperty(copy, 'toJSON', { value: () => sdk.AgentCard.toJSON(internal), enumerable: false });
    return copy;
  };
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: cardProvider, legacyCompat }));
  app.use(JSONRPC_PATH, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  app.use(REST_PATH, restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
  process.stdout.write(`READY ${base}\n`);
});

let exiting = false;
function shutdown() {
  if (exiting) return;
  exiting = true;
  httpServer.close();
  httpServer.closeAllConnections?.();
  setTimeout(() => process.exit(0), 200).unref();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
if (!args.ignoreStdin) {
  process.stdin.on('end', shutdown);
  process.stdin.on('close', shutdown);
  process.stdin.on('error', shutdown);
  process.stdin.resume();
}
