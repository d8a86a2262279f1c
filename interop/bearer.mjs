#!/usr/bin/env node
// Drives an OAuth-protected MCP server with the real TypeScript SDK v2 client.
//
//   node bearer.mjs URL --discover
//       POSTs an `initialize` without credentials, reads the 401 challenge with the SDK's
//       own extractWWWAuthenticateParams, then runs the SDK's
//       discoverOAuthProtectedResourceMetadata (the step its OAuth flow takes on a 401) and
//       checks the advertised resource against the server URL with checkResourceAllowed.
//   node bearer.mjs URL --token TOKEN --tool NAME [--args JSON] [--mode auto|modern|legacy]
//       Connects with `Authorization: Bearer TOKEN`, lists the tools and calls one.
//
// Every stdout line is one JSON object with an `event` field; exit 0 unless the SDK threw.
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
    options: {
        discover: { type: 'boolean', default: false },
        token: { type: 'string' },
        tool: { type: 'string' },
        args: { type: 'string', default: '{}' },
        mode: { type: 'string', default: 'auto' }
    },
    allowPositionals: true,
    strict: true
});
const url = positionals[0];
const out = obj => process.stdout.write(JSON.stringify(obj) + '\n');
const describe = error => ({ name: error?.name, code: error?.code, message: String(error?.message ?? error) });

const sdk = await import('@modelcontextprotocol/client');

async function discover() {
    const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
            jsonrpc: '2.0', id: 0, method: 'initialize',
            params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bearer', version: '1.0.0' } }
        })
    });
    const challenge = sdk.extractWWWAuthenticateParams(response);
    const metadata = await sdk.discoverOAuthProtectedResourceMetadata(url, {
        resourceMetadataUrl: challenge.resourceMetadataUrl
    });
    let allowed = null;
    try {
        allowed = sdk.checkResourceAllowed({ requestedResource: url, configuredResource: metadata.resource });
    } catch (error) {
        allowed = describe(error);
    }
    out({
        event: 'discovery',
        status: response.status,
        challenge: { ...challenge, resourceMetadataUrl: challenge.resourceMetadataUrl?.toString() },
        metadata,
        allowed
    });
}

async function call() {
    const mode = values.mode === 'modern' ? { pin: '2026-07-28' } : values.mode;
    const client = new sdk.Client({ name: 'bearer', version: '1.0.0' }, { versionNegotiation: { mode } });
    const transport = new sdk.StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${values.token}` } }
    });
    await client.connect(transport);
    out({ event: 'connected', era: client.getProtocolEra(), protocolVersion: client.getNegotiatedProtocolVersion() });
    const tools = await client.listTools();
    out({ event: 'tools', names: tools.tools.map(t => t.name) });
    try {
        const result = await client.callTool({ name: values.tool, arguments: JSON.parse(values.args) });
        out({ event: 'step', content: result.content, structuredContent: result.structuredContent ?? null, isError: result.isError ?? false });
    } catch (error) {
        out({ event: 'error', ...describe(error) });
    }
    await client.close();
}

try {
    await (values.discover ? discover() : call());
} catch (error) {
    out({ event: 'fatal', ...describe(error) });
    process.exit(1);
}
