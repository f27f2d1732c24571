import hljs from 'highlight.js/lib/common';
import { isValidElement, memo, useState, type ReactElement, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';

// An agent's text as Markdown (GitHub flavour). Raw HTML in it is never
// parsed as HTML (no rehype-raw): it shows as text, and the sanitizer drops
// anything unsafe the Markdown itself could produce (javascript: links, odd
// attributes). Code blocks are highlighted by highlight.js, whose output is
// the code HTML-escaped inside its own spans.

/** Past this many characters a block is shown plain: highlighting it would stall a streaming answer. */
const HIGHLIGHT_MAX_CHARS = 20_000;

function textOf(node: ReactNode): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  if (isValidElement<{ children?: ReactNode }>(node)) return textOf(node.props.children);
  return '';
}

function highlighted(code: string, language: string | undefined): string | undefined {
  if (code.length > HIGHLIGHT_MAX_CHARS) return undefined;
  try {
    if (language && hljs.getLanguage(language)) return hljs.highlight(code, { language, ignoreIllegals: true }).value;
    return hljs.highlightAuto(code).value;
  } catch {
    return undefined;
  }
}

function CopyButton({ text }: { text: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    void navigator.clipboard
      ?.writeText(text)
      .then(() => {
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      })
      .catch(() => setCopied(false));
  };
  return (
    <button type="button" className="copy" onClick={copy} aria-label="Copy the code">
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

function CodeBlock({ children }: { children?: ReactNode }) {
  const code = isValidElement<{ className?: string; children?: ReactNode }>(children) ? children : undefined;
  const language = /language-([\w+-]+)/.exec(code?.props.className ?? '')?.[1];
  const text = textOf(code?.props.children ?? children).replace(/\n$/, '');
  const html = highlighted(text, language);
  return (
    <div className="code-block">
      <div className="code-bar">
        <span className="code-language">{language ?? 'code'}</span>
        <CopyButton text={text} />
      </div>
      <pre>
        {html === undefined ? (
          <code>{text}</code>
        ) : (
          // highlight.js escapes the code; only its own <span class="hljs-…"> markup is added.
          <code className={`hljs${language ? ` language-${language}` : ''}`} dangerouslySetInnerHTML={{ __html: html }} />
        )}
      </pre>
    </div>
  );
}

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

/** Raw HTML in the Markdown is shown as the text it is (never parsed, never dropped silently). */
function remarkHtmlAsText() {
  const walk = (node: MdNode) => {
    if (node.type === 'html') node.type = 'text';
    node.children?.forEach(walk);
  };
  return (tree: MdNode) => walk(tree);
}

const COMPONENTS: Components = {
  pre: ({ children }) => <CodeBlock>{children}</CodeBlock>,
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  ),
  table: ({ children }) => (
    <div className="table-scroll">
      <table>{children}</table>
    </div>
  ),
};

/** Markdown, rendered safely; memoized on its text (a streaming answer re-renders only when it grew). */
export const Markdown = memo(function Markdown({ text }: { text: string }): ReactElement {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm, remarkHtmlAsText]} rehypePlugins={[rehypeSanitize]} components={COMPONENTS}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
