// Text in XML (GPX, KML): escaped, and without the characters XML 1.0 cannot carry. Pure.

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/** Whether XML 1.0 can carry the code point: tab, LF, CR, U+0020 up, but no lone surrogate, U+FFFE or U+FFFF. */
function isXmlChar(code: number): boolean {
  if (code < 0x20) return code === 0x9 || code === 0xa || code === 0xd;
  return !(code >= 0xd800 && code <= 0xdfff) && code !== 0xfffe && code !== 0xffff;
}

/** `text` as element content or an attribute value: the five specials escaped, characters XML cannot hold dropped. */
export function xmlText(text: string): string {
  let out = "";
  // By code point: a surrogate pair is one character, a lone surrogate one that is dropped.
  for (const char of text) if (isXmlChar(char.codePointAt(0)!)) out += ESCAPES[char] ?? char;
  return out;
}
