#!/usr/bin/env node
// Peer client for rate limits, against the inventory example (one server, or replicas behind
// a load balancer) started with MCP_RATE_LIMIT: TypeScript SDK v2 client
// (@modelcontextprotocol/client 2.4.0), or with --v1 the v1 SDK client
// (@modelcontextprotocol/sdk 1.32.2, legacy era only).
//
//   node rate.mjs <url> --calls N [--mode modern|legacy] [--v1]
//
// Calls the `replica` tool N times, one after the other, and reports each call: served (the
// name of the replica that answered), or refused (what the SDK threw: its class, whether it
// is the SDK's protocol error class — v2 ProtocolError, v1 McpError — and its code, message
// and data).
//
// Every stdout line is one JSON object with an "event" field: connected, served, refused,
// error, done. Exit codes: 0 ok, 1 anything else failed, 2 usage.
import { parseArgs } from 'node:util';

const MODERN_VERSION = '2026-07-28';
const timeout = 10000;

function out(obj) {
    process.stdout.write(JSON.stringify(obj) + '\n');
}

let parsed;
try {
    parsed = parseArgs({
        options: {
            calls: { type: 'string' },
            mode: { type: 'string', default: 'modern' },
            v1: { type: 'boolean', default: false }
        },
        allowPositionals: true,
        strict: true
    });
} catch (error) {
    process.stderr.write(`rate.mjs: ${error.message}\n`);
    process.exit(2);
}
const opts = parsed.values;
const calls = Number(opts.calls);
if (
    parsed.positionals.length !== 1 ||
    !Number.isInteger(calls) ||
    calls < 1 ||
    !['modern', 'legacy'].includes(opts.mode) ||
    (opts.v1 && opts.mode !== 'legacy')
) {
    process.stderr.write('usage: node rate.mjs <url> --calls N [--mode modern|legacy] [--v1]  (--v1: legacy only)\n');
    process.exit(2);
}
const url = new URL(parsed.positionals[0]);

/// A client and the SDK's protocol error class, connected.
async function connect() {
    const info = { name: 'mcp-interop-rate', version: '1.0.0' };
    if (opts.v1) {
        const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
        const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
        const { McpError } = await import('@modelcontextprotocol/sdk/types.js');
        const client = new Client(info, { capabilities: {} });
        const transport = new StreamableHTTPClientTransport(url);
        await client.connect(transport, { timeout });
        return { client, transport, isProtocolError: e => e instanceof McpError };
    }
    const { Client, StreamableHTTPClientTransport, ProtocolError } = await import('@modelcontextprotocol/client');
    const mode = opts.mode === 'modern' ? { pin: MODERN_VERSION } : 'legacy';
    const client = new Client(info, { capabilities: {}, versionNegotiation: { mode } });
    const transport = new StreamableHTTPClientTransport(url);
    await client.connect(transport, { timeout });
    return { client, transport, isProtocolError: e => ProtocolError.isInstance(e) };
}

async function main() {
    const { client, transport, isProtocolError } = await connect();
    out({ event: 'connected', sdk: opts.v1 ? 'v1' : 'v2', mode: opts.mode });
    for (let i = 0; i < calls; i++) {
        try {
            const params = { name: 'replica', arguments: {} };
            // v1: callTool(params, resultSchema, options); v2: callTool(params, options).
            const result = opts.v1
                ? await client.callTool(params, undefined, { timeout })
                : await client.callTool(params, { timeout });
            const text = (result.content ?? []).map(c => c.text ?? '').join('');
            out({ event: 'served', call: i, replica: text });
        } catch (error) {
            if (!isProtocolError(error)) throw error;
            out({
                event: 'refused',
                call: i,
                class: error.constructor?.name ?? null,
                protocolError: true,
                code: error.code,
                message: error.message,
                data: error.data ?? null
            });
        }
    }
    await transport.terminateSession?.().catch(() => {});
    await client.close();
    out({ event: 'done' });
    return 0;
}

main().then(
    code => process.exit(code),
    error => {
        out({ event: 'error', class: error?.constructor?.name ?? null, code: error?.code ?? null, message: error?.message ?? String(error) });
        process.exit(1);
    }
);
