import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
const [cmd, ...args] = process.argv.slice(2);
for (const era of ['legacy', 'modern']) {
  const client = new Client({ name: 'probe', version: '1' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  const t = new StdioClientTransport({ command: cmd, args, stderr: 'ignore' });
  await client.connect(t);
  const inner = t.onmessage;
  let raw;
  t.onmessage = (m, e) => { if (m.result && m.result.tools) raw = m.result; inner(m, e); };
  await client.listTools();
  console.log(era, Object.keys(raw), JSON.stringify(raw).length, JSON.stringify({ ...raw, tools: undefined }));
  await client.close();
}
