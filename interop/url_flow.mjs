#!/usr/bin/env node
// URL-elicitation driver for interoperability tests: one `tools/call` through the
// TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0) pinned to 2026-07-28, whose
// elicitation handler plays the user opening the link in a browser.
//
//   node url_flow.mjs <url> --user NAME [--tool list_events] [--open-as NAME] [--decline]
//                     [--max-rounds N] [--timeout MS]
//
// Every request to the MCP endpoint carries `X-User: <user>`. For a URL elicitation the
// handler FETCHES the URL with `x-user: <open-as>` (default: the same user) and then answers
// `{action: "accept"}`; with --decline it answers `{action: "decline"}` without opening it.
// Form elicitations (not expected here) are cancelled.
//
// Every line on stdout is one JSON object with an "event" field:
//   connected   era, protocolVersion, serverInfo
//   elicitation round, mode, message, url, elicitationId, opened {as, status, body}, answer
//   result      content, structuredContent, isError
//   error       code, message, name, data of a protocol/SDK error (e.g. rounds exceeded)
//   done        exitCode
// Exit codes: 0 the call returned a result, 1 a protocol/transport error, 2 usage error.
import { parseArgs } from 'node:util';

const USAGE = `usage: node url_flow.mjs <url> --user NAME [--tool NAME] [--open-as NAME] [--decline]
                   [--max-rounds N] [--timeout MS]

  --user NAME       the user: sent as X-User on every MCP request
  --tool NAME       the tool to call, without arguments (default list_events)
  --open-as NAME    the user who opens elicitation URLs (default: --user)
  --decline         decline URL elicitations instead of opening them
  --max-rounds N    the client's inputRequired.maxRounds (default 10, the SDK default)
  --timeout MS      per-request timeout (default 30000)
`;

const MODERN_VERSION = '2026-07-28';

function out(obj) {
    process.stdout.write(JSON.stringify(obj) + '\n');
}

function usage(message) {
    process.stderr.write(`url_flow.mjs: ${message}\n\n${USAGE}`);
    process.exit(2);
}

let parsed;
try {
    parsed = parseArgs({
        options: {
            user: { type: 'string' },
            tool: { type: 'string', default: 'list_events' },
            'open-as': { type: 'string' },
            decline: { type: 'boolean', default: false },
            'max-rounds': { type: 'string', default: '10' },
            timeout: { type: 'string', default: '30000' },
            help: { type: 'boolean', short: 'h', default: false }
        },
        allowPositionals: true,
        strict: true
    });
} catch (error) {
    usage(error.message);
}
const opts = parsed.values;
if (opts.help) {
    process.stdout.write(USAGE);
    process.exit(0);
}
if (parsed.positionals.length !== 1) usage('exactly one <url> is required');
let url;
try {
    url = new URL(parsed.positionals[0]);
} catch {
    usage(`not a URL: ${parsed.positionals[0]}`);
}
if (!opts.user) usage('--user is required');
const openAs = opts['open-as'] ?? opts.user;
const maxRounds = Number(opts['max-rounds']);
if (!Number.isInteger(maxRounds) || maxRounds <= 0) usage('--max-rounds must be a positive integer');
const timeout = Number(opts.timeout);
if (!Number.isInteger(timeout) || timeout <= 0) usage('--timeout must be a positive integer (ms)');

function describeError(error) {
    const info = { code: error?.code ?? null, message: error?.message ?? String(error) };
    if (error?.data !== undefined) info.data = error.data;
    if (error?.name) info.name = error.name;
    return info;
}

let round = 0;

async function answerElicitation(params) {
    round++;
    const event = {
        event: 'elicitation',
        round,
        mode: params?.mode ?? 'form',
        message: params?.message,
        url: params?.url,
        elicitationId: params?.elicitationId
    };
    let answer;
    if (event.mode !== 'url') {
        answer = { action: 'cancel' };
    } else if (opts.decline) {
        answer = { action: 'decline' };
    } else {
        // The user opens the link in a browser, signed in as `openAs`.
        const response = await fetch(params.url, { headers: { 'x-user': openAs }, redirect: 'manual' });
        event.opened = { as: openAs, status: response.status, body: await response.text() };
        answer = { action: 'accept' };
    }
    out({ ...event, answer });
    return answer;
}

async function main() {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client(
        { name: 'mcp-interop-url-flow', version: '1.0.0' },
        {
            capabilities: { elicitation: { form: {}, url: {} } },
            versionNegotiation: { mode: { pin: MODERN_VERSION } },
            inputRequired: { maxRounds }
        }
    );
    client.setRequestHandler('elicitation/create', async request => answerElicitation(request.params));
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'X-User': opts.user } } });
    try {
        await client.connect(transport, { timeout });
    } catch (error) {
        out({ event: 'error', phase: 'connect', ...describeError(error) });
        return 1;
    }
    out({
        event: 'connected',
        era: client.getProtocolEra(),
        protocolVersion: client.getNegotiatedProtocolVersion(),
        serverInfo: client.getServerVersion()
    });
    let exitCode = 0;
    try {
        const result = await client.callTool({ name: opts.tool, arguments: {} }, { timeout });
        out({
            event: 'result',
            content: result.content ?? [],
            structuredContent: result.structuredContent ?? null,
            isError: result.isError === true
        });
    } catch (error) {
        out({ event: 'error', phase: 'tools/call', ...describeError(error) });
        process.stderr.write(`error ${error?.code}: ${error?.message}\n`);
        exitCode = 1;
    }
    await client.close().catch(() => {});
    out({ event: 'done', rounds: round, exitCode });
    return exitCode;
}

main().then(
    code => process.exit(code),
    error => {
        out({ event: 'error', phase: 'internal', ...describeError(error) });
        process.exit(1);
    }
);
