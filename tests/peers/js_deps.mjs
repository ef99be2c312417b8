// Copied by tests/peers/install.sh into $PEERS_DIR/js/deps.mjs, next to the
// installed node_modules, so that js_agent.mjs (which lives in the repo) can
// load the pinned packages with normal ESM resolution.
export * as sdk from '@a2a-js/sdk';
export * as server from '@a2a-js/sdk/server';
export * as serverExpress from '@a2a-js/sdk/server/express';
export { default as express } from 'express';
export * as jose from 'jose';
