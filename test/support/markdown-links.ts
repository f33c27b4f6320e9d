// The headings and relative links of Markdown pages as GitHub renders them, and which of
// those links lead nowhere: what test/docs/links.test.ts holds the README and docs/ to.

import { existsSync, readFileSync } from "node:fs";
import { dirname, extname, relative, resolve } from "node:path";

export interface Heading {
  level: number;
  text: string;
  /** GitHub's anchor: its slug, with -1, -2 ... on the second and later headings of the same slug. */
  anchor: string;
  line: number;
}

export interface Link {
  target: string;
  line: number;
}

/** GitHub's slug of a heading (github-slugger): lower case, punctuation dropped, each space a hyphen. */
export function githubSlug(text: string): string {
  return renderedText(text)
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

export function headingsOf(markdown: string): Heading[] {
  const seen = new Map<string, number>();
  const headings: Heading[] = [];
  outsideCode(markdown).forEach((line, index) => {
    const match = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (!match) return;
    const text = match[2]!;
    const slug = githubSlug(text);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    headings.push({ level: match[1]!.length, text, anchor: count === 0 ? slug : `${slug}-${count}`, line: index + 1 });
  });
  return headings;
}

/** Every inline link and image target outside code, and every reference definition's. */
export function linksOf(markdown: string): Link[] {
  // Code spans go, their line breaks kept, so a line number still counts from the top.
  const text = outsideCode(markdown)
    .join("\n")
    .replace(/`[^`]*`/g, (span) => span.replace(/[^\n]/g, ""));
  const links: Link[] = [];
  const lineAt = (offset: number) => text.slice(0, offset).split("\n").length;
  for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    links.push({ target: match[1]!, line: lineAt(match.index) });
  }
  for (const match of text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)) {
    links.push({ target: match[1]!, line: lineAt(match.index) });
  }
  return links;
}

/**
 * Each relative link of the pages that names no file or folder inside root, or an anchor
 * that no heading of the Markdown page it points to has, as "page:line: target: why".
 */
export function brokenLinks(root: string, pages: string[]): string[] {
  const anchors = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => {
    let found = anchors.get(file);
    if (!found) anchors.set(file, (found = new Set(headingsOf(readFileSync(file, "utf8")).map((heading) => heading.anchor))));
    return found;
  };
  const broken: string[] = [];
  for (const page of pages) {
    const file = resolve(root, page);
    for (const { target, line } of linksOf(readFileSync(file, "utf8"))) {
      // Other sites are not this check's business.
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const why = whyBroken(root, file, target, anchorsIn);
      if (why) broken.push(`${page}:${line}: ${target}: ${why}`);
    }
  }
  return broken;
}

function whyBroken(root: string, page: string, target: string, anchorsIn: (file: string) => Set<string>): string | null {
  if (target.startsWith("/")) return "a path from the site's root: GitHub resolves it against the repository's, write it relative";
  const hash = target.indexOf("#");
  const path = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
  const file = path === "" ? page : resolve(dirname(page), path);
  if (relative(root, file).startsWith("..")) return "outside the repository";
  if (!existsSync(file)) return "no such file or folder";
  // Anchors of other files (a source line, #L10) are GitHub's, not a heading's.
  if (anchor !== null && extname(file) === ".md" && !anchorsIn(file).has(anchor)) return `no heading with the anchor #${anchor}`;
  return null;
}

/** The page's lines with those of fenced code blocks blanked: a `# comment` in a shell block is no heading. */
function outsideCode(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split("\n").map((line) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) {
      fence = marker;
      return "";
    }
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      return "";
    }
    return line;
  });
}

/** A heading's text as rendered: a link's text without its target, code without its backticks. */
function renderedText(text: string): string {
  return text.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/`/g, "");
}
