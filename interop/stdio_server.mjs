#!/usr/bin/env node
// Peer MCP server over stdio on @modelcontextprotocol/server 2.4.0 (TypeScript SDK v2),
// for the stdio client interop tests.
//
//   node stdio_server.mjs            serveStdio(factory): the first message picks the era
//   node stdio_server.mjs --legacy   a hand-wired StdioServerTransport: legacy only
//                                    (a server/discover probe is answered -32601)
//
// Tools: add(a, b) -> "<sum>" and structuredContent {sum}; echo(text) -> text;
// confirm_delete(item) -> asks for a confirmation (elicitation), answers "Deleted" or "Kept";
// summarize(text) -> asks the client's model (sampling), answers "Summary: <model text> (<model>)";
// roots() -> asks for the client's roots, answers their URIs joined by ", ".
// Logs go to stderr only.
import { McpServer, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

const confirmSchema = z.object({ confirm: z.boolean().meta({ title: 'Delete it?' }) });

function buildServer() {
    const server = new McpServer(
        { name: 'ts-stdio-peer', version: '1.0.0' },
        { capabilities: { tools: {} }, instructions: 'TypeScript SDK stdio peer server.' }
    );
    server.registerTool(
        'add',
        {
            description: 'Add two integers',
            inputSchema: z.object({ a: z.number().int(), b: z.number().int() }),
            outputSchema: z.object({ sum: z.number().int() })
        },
        async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } })
    );
    server.registerTool(
        'echo',
        { description: 'Return the text unchanged', inputSchema: z.object({ text: z.string() }) },
        async ({ text }) => ({ content: [{ type: 'text', text }] })
    );
    server.registerTool(
        'confirm_delete',
        { description: 'Ask whether to delete an item', inputSchema: z.object({ item: z.string() }) },
        async ({ item }, ctx) => {
            const view = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
            if (view.kind !== 'elicit') {
                return inputRequired({
                    inputRequests: {
                        confirm: inputRequired.elicit({ message: `Delete ${item}?`, requestedSchema: confirmSchema })
                    }
                });
            }
            const parsed = view.action === 'accept' ? confirmSchema.safeParse(view.content ?? {}) : undefined;
            const deleted = parsed?.success === true && parsed.data.confirm === true;
            return { content: [{ type: 'text', text: deleted ? 'Deleted' : 'Kept' }] };
        }
    );
    server.registerTool(
        'summarize',
        { description: "Summarise a text with the client's model", inputSchema: z.object({ text: z.string() }) },
        async ({ text }, ctx) => {
            const view = inputResponse(ctx.mcpReq.inputResponses, 'summary');
            if (view.kind !== 'sampling') {
                return inputRequired({
                    inputRequests: {
                        summary: inputRequired.createMessage({
                            messages: [{ role: 'user', content: { type: 'text', text: `Summarise: ${text}` } }],
                            maxTokens: 50
                        })
                    }
                });
            }
            const content = view.result.content;
            const block = Array.isArray(content) ? content.find(c => c.type === 'text') : content;
            return { content: [{ type: 'text', text: `Summary: ${block?.text ?? ''} (${view.result.model})` }] };
        }
    );
    server.registerTool('roots', { description: "List the client's roots", inputSchema: z.object({}) }, async (_args, ctx) => {
        const view = inputResponse(ctx.mcpReq.inputResponses, 'roots');
        if (view.kind !== 'roots') {
            return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
        }
        return { content: [{ type: 'text', text: view.roots.map(r => r.uri).join(', ') }] };
    });
    return server;
}

if (process.argv.includes('--legacy')) {
    await buildServer().connect(new StdioServerTransport());
} else {
    serveStdio(() => buildServer(), { onerror: error => process.stderr.write(`stdio_server.mjs: ${error.message}\n`) });
}
