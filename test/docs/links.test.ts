// The docs stay findable: every relative link in the README and docs/ leads to a file of
// the checkout and, with an anchor, to a heading of the page (GitHub's anchors), and the
// contents of docs/decisions.md list every one of its sections.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { brokenLinks, githubSlug, headingsOf, linksOf } from "../support/markdown-links.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const DECISIONS = readFileSync(join(ROOT, "docs/decisions.md"), "utf8");

describe("the README and docs/", () => {
  it("link only to files of the checkout and headings of their pages", () => {
    expect(PAGES).toEqual(expect.arrayContaining(["README.md", "docs/decisions.md", "docs/scaling.md"]));
    expect(brokenLinks(ROOT, PAGES)).toEqual([]);
  });

  it("reach every page of docs/ from the README", () => {
    const linked = new Set(linksOf(readFileSync(join(ROOT, "README.md"), "utf8")).map((link) => link.target.split("#")[0]));
    expect(PAGES.filter((page) => page !== "README.md" && !linked.has(page))).toEqual([]);
  });
});

describe("the contents of docs/decisions.md", () => {
  const headings = headingsOf(DECISIONS);
  const contents = headings.find((heading) => heading.level === 2 && heading.text === "Contents");
  const sections = headings.filter((heading) => heading.level === 2 && heading !== contents);

  it("come first, before any section", () => {
    expect(contents).toBeDefined();
    expect(contents!.line).toBeLessThan(sections[0]!.line);
  });

  it("link every ## section", () => {
    const end = sections.find((heading) => heading.line > contents!.line)!.line;
    const block = DECISIONS.split("\n")
      .slice(contents!.line, end - 1)
      .join("\n");
    const listed = new Set(linksOf(block).map((link) => link.target));
    expect(sections.length).toBeGreaterThan(10);
    expect(sections.filter((section) => !listed.has(`#${section.anchor}`)).map((section) => section.text)).toEqual([]);
  });
});

describe("the link check itself", () => {
  const dir = mkdtempSync(join(tmpdir(), "race-api-links-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("spells anchors as GitHub does", () => {
    expect(githubSlug("Structure (issue 13)")).toBe("structure-issue-13");
    expect(githubSlug("Import (`race-scenario/v1`)")).toBe("import-race-scenariov1");
    expect(githubSlug("The reference at /docs, made honest")).toBe("the-reference-at-docs-made-honest");
    expect(githubSlug("Push: Watch streams and Server-Sent Events")).toBe("push-watch-streams-and-server-sent-events");
    expect(githubSlug("`race-api feed`: a simulated race for any server")).toBe("race-api-feed-a-simulated-race-for-any-server");
    expect(githubSlug("Figures (this machine: 2 cores, MariaDB 10.11)")).toBe("figures-this-machine-2-cores-mariadb-1011");
    expect(githubSlug("[Linked](elsewhere.md) title")).toBe("linked-title");
  });

  it("numbers repeated headings and skips code blocks", () => {
    const page = ["# Page", "## Figures", "```sh", "# a shell comment", "```", "## Figures", "### Figures"].join("\n");
    expect(headingsOf(page).map((heading) => heading.anchor)).toEqual(["page", "figures", "figures-1", "figures-2"]);
  });

  it("reports each link that leads nowhere, and no other", () => {
    mkdirSync(join(dir, "docs"), { recursive: true });
    writeFileSync(join(dir, "src.ts"), "");
    writeFileSync(join(dir, "docs/other.md"), "# Other\n\n## A part (issue 1)\n");
    writeFileSync(
      join(dir, "README.md"),
      [
        "# Top",
        "[fine](docs/other.md#a-part-issue-1) [fine too](#top) [a file](src.ts) [a folder](docs)",
        "[other site](https://example.com/x.md#nothing) `[in code](missing.md)`",
        "```",
        "[in a block](missing.md)",
        "```",
        "[no file](docs/missing.md) [no heading](docs/other.md#a-part)",
        "[no heading here](#bottom) [from the root](/src.ts) [outside](../elsewhere.md)",
        "[a link over",
        "two lines](docs/gone.md)",
        "[ref]: docs/absent.md",
      ].join("\n"),
    );
    expect(brokenLinks(dir, ["README.md", "docs/other.md"])).toEqual([
      "README.md:7: docs/missing.md: no such file or folder",
      "README.md:7: docs/other.md#a-part: no heading with the anchor #a-part",
      "README.md:8: #bottom: no heading with the anchor #bottom",
      "README.md:8: /src.ts: a path from the site's root: GitHub resolves it against the repository's, write it relative",
      "README.md:8: ../elsewhere.md: outside the repository",
      "README.md:10: docs/gone.md: no such file or folder",
      "README.md:11: docs/absent.md: no such file or folder",
    ]);
  });
});
