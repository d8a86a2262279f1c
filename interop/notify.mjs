#!/usr/bin/env node
// Peer client for change notifications (TypeScript SDK v2 client,
// @modelcontextprotocol/client 2.4.0), against the inventory example (one server, or
// replicas behind a load balancer).
//
//   node notify.mjs <url> --mode modern|legacy [--pause]
//
// modern: listen({toolsListChanged, promptsListChanged, resourceSubscriptions: [stock],
//         bogus}), then restock / touch (each announces a change, on whichever replica the
//         call lands) and waits for the notification on the listen stream; then confirm
//         (an input_required round answered by the elicitation handler; the retry may land
//         on another replica); then closes the subscription.
// legacy: subscribes to the stock resource, counts calls in the session, restock / touch
//         with the notification awaited on the GET stream, then confirm (an elicitation
//         request on the call's stream, answered by a POST that may land on another
//         replica).
// --pause: after that, prints {"event":"paused"} and waits for a line on stdin, then counts
//         again and names the replicas (the cluster test kills a replica meanwhile).
//
// Every stdout line is one JSON object with an "event" field: connected, listening,
// replica, count, called, notified, confirmed, closed, paused, error, done.
// Exit codes: 0 ok, 1 a step failed, 2 usage.
import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline';

const MODERN_VERSION = '2026-07-28';
const STOCK = 'inventory://stock';
const timeout = 10000;

function out(obj) {
    process.stdout.write(JSON.stringify(obj) + '\n');
}

let parsed;
try {
    parsed = parseArgs({ options: { mode: { type: 'string' }, pause: { type: 'boolean', default: false } }, allowPositionals: true, strict: true });
} catch (error) {
    process.stderr.write(`notify.mjs: ${error.message}\n`);
    process.exit(2);
}
const opts = parsed.values;
if (parsed.positionals.length !== 1 || !['modern', 'legacy'].includes(opts.mode)) {
    process.stderr.write('usage: node notify.mjs <url> --mode modern|legacy [--pause]\n');
    process.exit(2);
}

// Notifications received, and waiters for the next one of a method.
const waiters = [];
function received(method, params) {
    const at = performance.now();
    const i = waiters.findIndex(w => w.method === method);
    if (i >= 0) waiters.splice(i, 1)[0].resolve({ params, at });
}
function next(method, ms = 5000) {
    return new Promise((resolve, reject) => {
        const w = { method, resolve };
        waiters.push(w);
        setTimeout(() => {
            const i = waiters.indexOf(w);
            if (i >= 0) {
                waiters.splice(i, 1);
                reject(new Error(`no ${method} within ${ms} ms`));
            }
        }, ms);
    });
}

function text(result) {
    return (result.content ?? []).map(c => c.text ?? '').join('');
}

async function main() {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const mode = opts.mode === 'modern' ? { pin: MODERN_VERSION } : 'legacy';
    const client = new Client({ name: 'mcp-interop-notify', version: '1.0.0' }, {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode }
    });
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { ok: true } }));
    for (const method of ['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/updated']) {
        client.setNotificationHandler(method, n => received(method, n.params));
    }
    const transport = new StreamableHTTPClientTransport(new URL(parsed.positionals[0]));
    await client.connect(transport, { timeout });
    out({ event: 'connected', era: client.getProtocolEra(), capabilities: client.getServerCapabilities() });
    const call = async (name, args = {}) => text(await client.callTool({ name, arguments: args }, { timeout }));

    let subscription;
    if (opts.mode === 'modern') {
        subscription = await client.listen(
            { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: [STOCK], bogus: true },
            { timeout }
        );
        out({ event: 'listening', honored: subscription.honoredFilter });
    } else {
        await client.subscribeResource({ uri: STOCK }, { timeout });
        for (let i = 0; i < 4; i++) {
            out({ event: 'count', value: await call('count') });
        }
        // Give the GET stream time to open.
        await new Promise(r => setTimeout(r, 500));
    }
    for (const [tool, args, method] of [
        ['restock', {}, 'notifications/tools/list_changed'],
        ['touch', { uri: STOCK }, 'notifications/resources/updated']
    ]) {
        const waiting = next(method);
        const start = performance.now();
        const answer = await call(tool, args);
        out({ event: 'called', tool, text: answer });
        const { params, at } = await waiting;
        out({ event: 'notified', method, params, ms: Math.round((at - start) * 10) / 10 });
    }
    // Two confirmations with one call between them: behind a round-robin balancer the
    // answer of one of them lands on the replica that did not ask.
    out({ event: 'confirmed', text: await call('confirm') });
    out({ event: 'replica', replica: await call('replica') });
    out({ event: 'confirmed', text: await call('confirm') });
    if (opts.pause) {
        out({ event: 'paused' });
        const lines = createInterface({ input: process.stdin });
        await new Promise(resolve => lines.once('line', resolve));
        lines.close();
        for (let i = 0; i < 4; i++) {
            if (opts.mode === 'legacy') {
                out({ event: 'count', value: await call('count') });
            } else {
                out({ event: 'replica', replica: await call('replica'), after: 'pause' });
            }
        }
    }
    if (subscription) {
        await subscription.close();
        out({ event: 'closed', how: await subscription.closed });
    }
    await transport.terminateSession?.().catch(() => {});
    await client.close();
    out({ event: 'done' });
    return 0;
}

main().then(
    code => process.exit(code),
    error => {
        out({ event: 'error', code: error?.code ?? null, message: error?.message ?? String(error) });
        process.exit(1);
    }
);
