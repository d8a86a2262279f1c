// A web page that talks to MCP servers on another origin with the TypeScript SDK v2 client,
// bundled for the browser (esbuild, `platform=browser`) and loaded in headless Chromium by
// `examples/tests/browser.rs`, which serves it from a second loopback origin.
//
// The query string names the servers:
//   weather  the weather example (allows this page's origin)
//   files    the OAuth-protected files example (allows this page's origin)
//   token    a bearer token for `files`
//   foreign  a weather server that does NOT allow this page's origin
//
// Every step is recorded with the requests the client made (method, request header names,
// status, the response headers a page can read) and the whole report is POSTed to
// `/report` on the page's own origin.
import {
    Client,
    StreamableHTTPClientTransport,
    discoverOAuthProtectedResourceMetadata,
    extractWWWAuthenticateParams
} from '@modelcontextprotocol/client';

const query = new URLSearchParams(location.search);
const report = { userAgent: navigator.userAgent, origin: location.origin, steps: [] };
const describe = error => ({
    name: error?.name,
    code: error?.code ?? null,
    status: error?.status ?? error?.data?.status ?? null,
    message: String(error?.message ?? error)
});

/** A fetch that records what the client asked for and what the page could read back. */
function recordingFetch(log) {
    return async (input, init) => {
        const headers = new Headers(init?.headers);
        const entry = { method: init?.method ?? 'GET', requestHeaders: [...headers.keys()].sort() };
        log.push(entry);
        try {
            const response = await fetch(input, init);
            entry.status = response.status;
            entry.sessionId = response.headers.get('mcp-session-id');
            entry.protocolVersion = response.headers.get('mcp-protocol-version');
            entry.wwwAuthenticate = response.headers.get('www-authenticate');
            return response;
        } catch (error) {
            entry.error = describe(error);
            throw error;
        }
    };
}

/** Connects in `mode`, lists the tools and calls `calls` ([name, arguments] pairs). */
async function session(label, url, mode, calls, headers = {}) {
    const requests = [];
    const step = { label, mode, requests, calls: [] };
    report.steps.push(step);
    const negotiation = mode === 'modern' ? { pin: '2026-07-28' } : mode;
    const client = new Client({ name: 'browser-page', version: '1.0.0' }, { versionNegotiation: { mode: negotiation } });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
        fetch: recordingFetch(requests),
        requestInit: { headers }
    });
    try {
        await client.connect(transport);
        step.era = client.getProtocolEra();
        step.protocolVersion = client.getNegotiatedProtocolVersion();
        step.sessionId = transport.sessionId ?? null;
        const tools = await client.listTools();
        step.tools = tools.tools.map(t => t.name);
        for (const [name, args] of calls) {
            const at = requests.length;
            try {
                const result = await client.callTool({ name, arguments: args });
                step.calls.push({ name, ok: true, isError: result.isError ?? false, content: result.content, structuredContent: result.structuredContent ?? null, requests: requests.slice(at) });
            } catch (error) {
                step.calls.push({ name, ok: false, error: describe(error), requests: requests.slice(at) });
            }
        }
        if (step.sessionId) {
            await transport.terminateSession();
            step.terminated = true;
        }
        await client.close();
    } catch (error) {
        step.error = describe(error);
    }
}

/** The 401 challenge as a page reads it, and the SDK's discovery of our metadata. */
async function challenge(url) {
    const step = { label: 'files-challenge' };
    report.steps.push(step);
    try {
        const response = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
            body: JSON.stringify({
                jsonrpc: '2.0', id: 0, method: 'initialize',
                params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser-page', version: '1.0.0' } }
            })
        });
        step.status = response.status;
        step.wwwAuthenticate = response.headers.get('www-authenticate');
        const params = extractWWWAuthenticateParams(response);
        step.challenge = { ...params, resourceMetadataUrl: params.resourceMetadataUrl?.toString() ?? null };
        step.metadata = await discoverOAuthProtectedResourceMetadata(url, { resourceMetadataUrl: params.resourceMetadataUrl });
    } catch (error) {
        step.error = describe(error);
    }
}

const weatherCalls = [
    ['get_current_weather', { city: 'Lisbon' }],
    ['regional_weather', { region: 'eu-west', city: 'Porto' }]
];

try {
    const weather = query.get('weather');
    await session('weather-modern', weather, 'modern', weatherCalls);
    await session('weather-legacy', weather, 'legacy', weatherCalls);
    await session('weather-auto', weather, 'auto', weatherCalls);
    const files = query.get('files');
    await session('files-anonymous', files, 'modern', []);
    await challenge(files);
    const bearer = { Authorization: `Bearer ${query.get('token')}` };
    await session('files-modern', files, 'modern', [['whoami', {}]], bearer);
    await session('files-legacy', files, 'legacy', [['whoami', {}]], bearer);
    await session('foreign', query.get('foreign'), 'modern', []);
} catch (error) {
    report.fatal = describe(error);
}
await fetch('/report', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(report) });
document.title = 'done';
