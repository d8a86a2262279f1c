#!/usr/bin/env node
// Peer MCP client for the interoperability of resources, resource templates, prompts and
// completion (TypeScript SDK v2 client, @modelcontextprotocol/client 2.4.0).
//
//   node features.mjs <url> --mode modern|legacy --script features.json
//
// The script: {"read": [uri...], "prompts": [{"name", "arguments"}...],
//              "complete": [{"ref", "argument", "context"?}...]}
// Every line on stdout is one JSON object with an "event" field:
//   connected   era, protocolVersion, capabilities
//   resources   the listed resources (all pages, the SDK's own walk)
//   templates   the listed resource templates
//   read        uri and contents of one read
//   prompts     the listed prompts
//   prompt      name and messages of one prompts/get
//   completion  the completion of one completion/complete
//   error       op, what and the JSON-RPC code and message of a failed request
//   done        summary
// Exit codes: 0 ok (failed requests are reported, not fatal), 1 connection error, 2 usage.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const MODERN_VERSION = '2026-07-28';

function out(obj) {
    process.stdout.write(JSON.stringify(obj) + '\n');
}

function usage(message) {
    process.stderr.write(`features.mjs: ${message}\nusage: node features.mjs <url> --mode modern|legacy --script FILE\n`);
    process.exit(2);
}

let parsed;
try {
    parsed = parseArgs({
        options: { mode: { type: 'string', default: 'legacy' }, script: { type: 'string' } },
        allowPositionals: true,
        strict: true
    });
} catch (error) {
    usage(error.message);
}
const opts = parsed.values;
if (parsed.positionals.length !== 1) usage('exactly one <url> is required');
if (!['modern', 'legacy'].includes(opts.mode)) usage('--mode must be modern or legacy');
if (!opts.script) usage('--script is required');
let script;
try {
    script = JSON.parse(readFileSync(opts.script, 'utf8'));
} catch (error) {
    usage(`cannot read ${opts.script}: ${error.message}`);
}

function failure(op, what, error) {
    out({ event: 'error', op, what, code: error?.code ?? null, message: error?.message ?? String(error), data: error?.data });
}

async function main() {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const mode = opts.mode === 'modern' ? { pin: MODERN_VERSION } : 'legacy';
    const client = new Client({ name: 'mcp-interop-features', version: '1.0.0' }, { versionNegotiation: { mode }, listMaxPages: 64 });
    const transport = new StreamableHTTPClientTransport(new URL(parsed.positionals[0]));
    try {
        await client.connect(transport);
    } catch (error) {
        failure('connect', null, error);
        return 1;
    }
    out({ event: 'connected', era: client.getProtocolEra(), protocolVersion: client.getNegotiatedProtocolVersion(), capabilities: client.getServerCapabilities() });
    const steps = [
        ['resources', async () => out({ event: 'resources', resources: (await client.listResources()).resources })],
        ['templates', async () => out({ event: 'templates', resourceTemplates: (await client.listResourceTemplates()).resourceTemplates })],
        ['prompts', async () => out({ event: 'prompts', prompts: (await client.listPrompts()).prompts })]
    ];
    for (const [op, run] of steps) {
        try {
            await run();
        } catch (error) {
            failure(op, null, error);
        }
    }
    for (const uri of script.read ?? []) {
        try {
            out({ event: 'read', uri, contents: (await client.readResource({ uri })).contents });
        } catch (error) {
            failure('read', uri, error);
        }
    }
    for (const p of script.prompts ?? []) {
        try {
            out({ event: 'prompt', name: p.name, messages: (await client.getPrompt({ name: p.name, arguments: p.arguments })).messages });
        } catch (error) {
            failure('prompt', p.name, error);
        }
    }
    for (const c of script.complete ?? []) {
        try {
            out({ event: 'completion', ref: c.ref, argument: c.argument.name, completion: (await client.complete(c)).completion });
        } catch (error) {
            failure('complete', c.argument?.name, error);
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
        failure('internal', null, error);
        process.exit(1);
    }
);
