// Ready-made settings for the major chat sites: one table of selectors for
// the assistant's messages, the input, the send button and the sign that a
// reply is still streaming. A preset applies to a page by its origin (the
// site's own) or by its structure (every `detect` selector matches
// something), which is how self-hosted apps and copies of a site's page are
// recognised. Pure: the content script counts the selectors, this module
// decides. Every selector is written with CSS syntax, so the options page
// uses it as is (two bare words would read as a class list: see toCss).
// Selectors follow what is publicly known of each page's markup, and how
// each site takes an image a person adds (paste, drop, file input) what is
// publicly known of it; when a site changes, the options page says the
// preset no longer matches.

/**
 * @typedef {object} Preset
 * @property {string} id
 * @property {string} name shown as "preset: <name>"
 * @property {string[]} origins the site's own origins
 * @property {string[]} detect selectors that all match on the site's chat page, empty conversation included
 * @property {string} source the assistant's messages
 * @property {string} destination the input (or a container holding it)
 * @property {string} sendButton the send button (matched only while it can send)
 * @property {string} streaming present while a reply is still being written ('' when the site shows none)
 * @property {{by: 'paste'|'drop'|'file', target: string}} attach how the site takes an image a person adds
 *   (core/attach_means.js): a paste into the input, a drop onto target (the input when ''), or the file input target
 */

/** @type {ReadonlyArray<Preset>} Structural matches are tried in this order: more specific first. */
export const PRESETS = Object.freeze([
  {
    id: 'chatgpt', name: 'ChatGPT', origins: ['https://chatgpt.com', 'https://chat.openai.com'],
    detect: ['div#prompt-textarea.ProseMirror[contenteditable="true"]'],
    source: '[data-message-author-role="assistant"]',
    destination: '#prompt-textarea',
    sendButton: 'button[data-testid="send-button"]',
    streaming: 'button[data-testid="stop-button"]',
    attach: { by: 'paste', target: '' },
  },
  {
    id: 'claude', name: 'Claude', origins: ['https://claude.ai'],
    detect: ['fieldset div.ProseMirror[contenteditable="true"]', 'button[aria-label="Send message"]'],
    source: '.font-claude-response, .font-claude-message',
    destination: 'fieldset div.ProseMirror[contenteditable="true"]',
    sendButton: 'button[aria-label="Send message"]',
    streaming: '[data-is-streaming="true"]',
    attach: { by: 'file', target: 'input[data-testid="file-upload"]' },
  },
  {
    id: 'gemini', name: 'Gemini', origins: ['https://gemini.google.com'],
    detect: ['rich-textarea div.ql-editor[contenteditable="true"]'],
    source: 'model-response :is(message-content)',
    destination: 'rich-textarea div.ql-editor',
    sendButton: 'button.send-button:not(.stop)',
    streaming: 'button.send-button.stop',
    attach: { by: 'drop', target: '[xapfileselectordropzone]' },
  },
  {
    id: 'copilot', name: 'Microsoft Copilot', origins: ['https://copilot.microsoft.com'],
    detect: ['textarea#userInput'],
    source: '[data-content="ai-message"]',
    destination: 'textarea#userInput',
    sendButton: 'button[data-testid="submit-button"]',
    streaming: 'button[data-testid="stop-button"]',
    attach: { by: 'paste', target: '' },
  },
  {
    id: 'deepseek', name: 'DeepSeek', origins: ['https://chat.deepseek.com'],
    detect: ['textarea#chat-input', 'div[role="button"][aria-disabled]'],
    source: '.ds-markdown',
    destination: 'textarea#chat-input',
    sendButton: 'div[role="button"][aria-disabled]',
    streaming: '',
    attach: { by: 'file', target: 'input[type="file"]' },
  },
  {
    id: 'grok', name: 'Grok', origins: ['https://grok.com'],
    detect: ['form textarea[aria-label="Ask Grok anything"]'],
    source: '.items-start .response-content-markdown',
    destination: 'form textarea[aria-label="Ask Grok anything"]',
    sendButton: 'form button[type="submit"]',
    streaming: 'button[aria-label="Stop model response"]',
    attach: { by: 'file', target: 'input[type="file"]' },
  },
  {
    id: 'perplexity', name: 'Perplexity', origins: ['https://www.perplexity.ai', 'https://perplexity.ai'],
    detect: ['#ask-input[data-lexical-editor="true"]'],
    source: 'div[id^="markdown-content-"]',
    destination: '#ask-input',
    sendButton: 'button[data-testid="submit-button"]',
    streaming: 'button[data-testid="stop-generating-response-button"]',
    attach: { by: 'file', target: 'input[type="file"][multiple]' },
  },
  {
    id: 'mistral', name: 'Mistral Le Chat', origins: ['https://chat.mistral.ai'],
    detect: ['form div.ProseMirror[contenteditable="true"]', 'button[aria-label="Send question"]'],
    source: '[data-message-author-role="assistant"]',
    destination: 'form div.ProseMirror[contenteditable="true"]',
    sendButton: 'button[aria-label="Send question"]',
    streaming: 'button[aria-label="Stop generation"]',
    attach: { by: 'drop', target: '' },
  },
  {
    id: 'qwen', name: 'Qwen Chat', origins: ['https://chat.qwen.ai'],
    detect: ['textarea#chat-input', 'button#send-message-button', '.chat-container'],
    source: '.response-message-content',
    destination: 'textarea#chat-input',
    sendButton: 'button#send-message-button',
    streaming: 'button.stop-button',
    attach: { by: 'drop', target: '' },
  },
  {
    id: 'kimi', name: 'Kimi', origins: ['https://www.kimi.com', 'https://kimi.com', 'https://kimi.moonshot.cn'],
    detect: ['div.chat-input-editor[contenteditable="true"]'],
    source: '.segment-assistant .markdown',
    destination: 'div.chat-input-editor',
    sendButton: '.send-button-container:not(.disabled):not(.stop)',
    streaming: '.send-button-container.stop',
    attach: { by: 'file', target: 'input[type="file"]' },
  },
  {
    id: 'aistudio', name: 'Google AI Studio', origins: ['https://aistudio.google.com'],
    detect: ['ms-prompt-input-wrapper :is(textarea)'],
    source: 'ms-chat-turn .chat-turn-container.model',
    destination: 'ms-prompt-input-wrapper :is(textarea)',
    sendButton: 'ms-run-button button:not(.stoppable)',
    streaming: 'ms-run-button button.stoppable',
    attach: { by: 'drop', target: '' },
  },
  {
    id: 'poe', name: 'Poe', origins: ['https://poe.com'],
    detect: ['textarea[class*="GrowingTextArea_textArea"]'],
    source: '[class*="Message_botMessageBubble"]',
    destination: 'textarea[class*="GrowingTextArea_textArea"]',
    sendButton: 'button[class*="ChatMessageSendButton_sendButton"]',
    streaming: 'button[class*="ChatStopMessageButton_stopButton"]',
    attach: { by: 'file', target: 'input[type="file"]' },
  },
  {
    id: 'huggingchat', name: 'HuggingChat', origins: ['https://huggingface.co'],
    detect: ['form textarea[enterkeyhint="send"]', 'button[aria-label="Send message"], button[aria-label="Stop generating"]'],
    source: '[data-message-role="assistant"]',
    destination: 'form textarea[enterkeyhint="send"]',
    sendButton: 'button[aria-label="Send message"]',
    streaming: 'button[aria-label="Stop generating"]',
    attach: { by: 'paste', target: '' },
  },
  {
    id: 'openwebui', name: 'Open WebUI', origins: [],
    detect: ['#chat-input', '#send-message-button, #stop-response-button'],
    source: '.chat-assistant #response-content-container',
    destination: '#chat-input',
    sendButton: 'button#send-message-button',
    streaming: 'button#stop-response-button',
    attach: { by: 'paste', target: '' },
  },
  {
    id: 'librechat', name: 'LibreChat', origins: [],
    detect: ['textarea#prompt-textarea[data-testid="text-input"]'],
    source: '.agent-turn .markdown',
    destination: 'textarea#prompt-textarea',
    sendButton: 'button[data-testid="send-button"]',
    streaming: 'button[data-testid="stop-generation-button"]',
    attach: { by: 'drop', target: '' },
  },
]);

/** The fields a preset fills in. */
export const PRESET_FIELDS = Object.freeze(['source', 'destination', 'sendButton', 'streaming']);

/** @returns {Preset|null} */
export function presetById(id) {
  return PRESETS.find((p) => p.id === id) || null;
}

/** Every selector the structural match needs counted, each once. */
export function detectSelectors() {
  return [...new Set(PRESETS.flatMap((p) => p.detect))];
}

/**
 * The preset for a page: the one whose origins include the page's origin,
 * else the first whose detect selectors all match.
 * @param {string} origin
 * @param {(css: string) => boolean} matches whether a selector matches something on the page
 * @returns {{preset: Preset, by: 'origin'|'structure'}|null}
 */
export function matchPreset(origin, matches) {
  const own = PRESETS.find((p) => p.origins.includes(origin));
  if (own) return { preset: own, by: 'origin' };
  const found = PRESETS.find((p) => p.detect.length && p.detect.every((css) => matches(css)));
  return found ? { preset: found, by: 'structure' } : null;
}

/** The settings a preset fills in (auto-send on, since it knows the send button). */
export function presetSettings(preset) {
  const out = { preset: preset.id, autoSend: true };
  for (const f of PRESET_FIELDS) out[f] = preset[f];
  return out;
}

/** Whether settings differ from their preset's selectors (the person edited them). */
export function editedFromPreset(settings, preset) {
  return PRESET_FIELDS.some((f) => (settings?.[f] ?? '') !== preset[f]);
}

/** What the options page and the badge say when a preset's elements are not on the page. */
export const PRESET_MISMATCH = 'preset no longer matches this page: pick the elements';
