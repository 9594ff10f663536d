// Renders what MCP answers: tool results (content blocks, structuredContent, isError), resource
// contents and prompt messages. Text stays text; images are data: URLs (the console's CSP allows them).
import { formatJSON, h, pre } from './dom.js';
import { schemaProblems } from './schema-check.js';

export function renderToolResult(result, tool) {
  return h('div', { class: `result${result?.isError ? ' is-error' : ''}`, dataset: { testid: 'tool-result' } },
    result?.isError && h('p', { class: 'error-banner', role: 'alert' }, 'The tool reported an error (isError).'),
    renderBlocks(result?.content || []),
    result?.structuredContent !== undefined && h('section', { class: 'structured' },
      h('h4', {}, 'structuredContent'),
      pre(formatJSON(result.structuredContent)),
      tool?.outputSchema && schemaVerdict(result.structuredContent, tool.outputSchema),
      tool?.outputSchema && h('details', {}, h('summary', {}, 'outputSchema'), pre(formatJSON(tool.outputSchema)))),
    result?._meta && h('details', {}, h('summary', {}, '_meta'), pre(formatJSON(result._meta))));
}

/** Whether structuredContent matches the tool's declared output schema, and if not, where. */
function schemaVerdict(value, schema) {
  const problems = schemaProblems(value, schema);
  if (problems.length === 0) return h('p', { class: 'hint', dataset: { testid: 'schema-verdict' } }, 'Matches the output schema.');
  return h('div', { class: 'error-text', role: 'alert', dataset: { testid: 'schema-verdict' } },
    h('p', {}, 'Does not match the output schema:'), h('ul', {}, problems.map((p) => h('li', {}, p))));
}

function renderBlocks(blocks) {
  return h('div', { class: 'blocks' }, blocks.map(renderBlock));
}

function renderBlock(block) {
  switch (block?.type) {
    case 'text':
      return pre(block.text, 'text-block');
    case 'image':
      return h('img', { class: 'image-block', src: `data:${block.mimeType};base64,${block.data}`, alt: 'Image returned by the tool' });
    case 'audio':
      return h('p', { class: 'hint' }, `Audio (${block.mimeType}, ${Math.round((block.data?.length || 0) * 0.75)} bytes)`);
    case 'resource':
      return h('div', { class: 'resource-block' }, h('p', { class: 'hint' }, `Embedded resource ${block.resource?.uri || ''}`),
        renderContents([block.resource]));
    case 'resource_link':
      return h('p', { class: 'resource-link' }, `Resource link: ${block.uri}${block.name ? ` (${block.name})` : ''}`);
    default:
      return pre(formatJSON(block));
  }
}

/** resources/read contents: [{uri, mimeType, text | blob}] */
export function renderContents(contents) {
  return h('div', { class: 'contents' }, (contents || []).map((item) => {
    const head = h('p', { class: 'hint' }, `${item.uri}${item.mimeType ? ` · ${item.mimeType}` : ''}`);
    if (typeof item.text === 'string') return h('div', {}, head, pre(item.text, 'text-block'));
    if (item.mimeType?.startsWith('image/') && item.blob) {
      return h('div', {}, head, h('img', { class: 'image-block', src: `data:${item.mimeType};base64,${item.blob}`, alt: item.uri }));
    }
    return h('div', {}, head, h('p', {}, `Binary, ${Math.round((item.blob?.length || 0) * 0.75)} bytes`));
  }));
}

/** prompts/get result: {description?, messages: [{role, content}]} */
export function renderPrompt(result) {
  return h('div', { class: 'result' },
    result.description && h('p', {}, result.description),
    h('ol', { class: 'messages' }, (result.messages || []).map((m) =>
      h('li', {}, h('strong', {}, m.role), renderBlocks(Array.isArray(m.content) ? m.content : [m.content])))));
}
