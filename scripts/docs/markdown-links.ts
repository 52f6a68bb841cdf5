import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, relative, resolve, sep } from 'node:path';
import GithubSlugger from 'github-slugger';
import { marked, type Token, type Tokens } from 'marked';

/** A link of a Markdown file that does not lead where it says, with the reason in one sentence. */
export interface BrokenLink {
  file: string;
  href: string;
  reason: string;
}

/** Every token of a Markdown token tree, depth first (links sit inside paragraphs, lists and tables). */
function* walk(tokens: readonly Token[]): Generator<Token> {
  for (const token of tokens) {
    yield token;
    const children: Token[] = [];
    if ('tokens' in token && Array.isArray(token.tokens)) children.push(...token.tokens);
    if (token.type === 'list') for (const item of (token as Tokens.List).items) children.push(item);
    if (token.type === 'table') {
      const table = token as Tokens.Table;
      for (const cell of [...table.header, ...table.rows.flat()]) children.push(...cell.tokens);
    }
    yield* walk(children);
  }
}

/** The text a heading shows (code spans as their code, emphasis as its words), which GitHub slugs. */
function plainText(tokens: readonly Token[]): string {
  return tokens.map((t) => ('tokens' in t && Array.isArray(t.tokens) ? plainText(t.tokens) : 'text' in t ? String(t.text) : '')).join('');
}

/** The link targets of a Markdown text, as written (code blocks and code spans hold none). */
export function linksOf(markdown: string): string[] {
  return [...walk(marked.lexer(markdown))].filter((t): t is Tokens.Link => t.type === 'link').map((t) => t.href);
}

/** The anchors GitHub gives the headings of a Markdown text (a repeated heading gets -1, -2, …). */
export function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const headings = [...walk(marked.lexer(markdown))].filter((t): t is Tokens.Heading => t.type === 'heading');
  return new Set(headings.map((h) => slugger.slug(plainText(h.tokens))));
}

const isExternal = (href: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(href);

/**
 * The relative links of `file` (inside the repository at `root`) that point at no file, outside the
 * repository, or at a heading its Markdown target does not have. External links are not fetched.
 */
export function brokenLinks(root: string, file: string): BrokenLink[] {
  const text = readFileSync(file, 'utf8');
  const shown = relative(root, file);
  const broken: BrokenLink[] = [];
  for (const href of linksOf(text)) {
    if (isExternal(href)) continue;
    const [pathPart, anchor] = href.split('#', 2) as [string, string | undefined];
    const target = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
    const fail = (reason: string) => broken.push({ file: shown, href, reason });
    if (target !== root && !target.startsWith(root + sep)) fail('it leads outside the repository');
    else if (!existsSync(target)) fail(`${relative(root, target)} does not exist`);
    else if (anchor !== undefined && statSync(target).isFile() && extname(target) === '.md') {
      if (!anchorsOf(readFileSync(target, 'utf8')).has(anchor)) fail(`${relative(root, target)} has no heading #${anchor}`);
    }
  }
  return broken;
}
