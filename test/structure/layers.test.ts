// The layers hold: the store is the bottom of the service (it imports nothing above
// it and takes and returns plain records), and domain/ is pure vocabulary and
// arithmetic (no I/O, no packages). Read from the sources' own import statements.
// And a rule with one home stays there: no Cache-Control value outside the cache policy.

import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(folder, name));
}

/** Every module a file imports, type-only and dynamic imports included: a project path, or a package name as written. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(ROOT, file), "utf8"), true, true);
  return importedFiles.map(({ fileName }) =>
    fileName.startsWith(".") ? relative(ROOT, resolve(ROOT, dirname(file), fileName)) : fileName,
  );
}

function violations(folder: string, allowed: (imported: string) => boolean): string[] {
  return sources(folder).flatMap((file) =>
    importsOf(file)
      .filter((imported) => !allowed(imported))
      .map((imported) => `${file} -> ${imported}`),
  );
}

describe("the layers", () => {
  it("reads the imports it judges", () => {
    // Guards the test itself: a parser that found nothing would pass everything.
    expect(importsOf("src/store/insight-inputs.ts")).toContain("src/domain/detection-input.js");
    expect(importsOf("src/store/pool.ts")).toContain("mysql2/promise");
    expect(sources("src/domain").length).toBeGreaterThan(3);
  });

  it("keeps the store at the bottom: it imports only the store, domain/, the program installer and packages", () => {
    const ownLayer = (imported: string) => imported.startsWith("src/store/") || imported.startsWith("src/domain/");
    // How MariaDB's binaries are found or installed: a helper of the process, not a layer above.
    const installer = (imported: string) => imported === "src/debian-packages.js";
    const isPackage = (imported: string) => !imported.startsWith("src/") && !imported.startsWith("gen/") && !imported.startsWith("test/");
    expect(violations("src/store", (imported) => ownLayer(imported) || installer(imported) || isPackage(imported))).toEqual([]);
  });

  it("keeps domain/ pure: it imports only domain/, no Node module and no package", () => {
    expect(violations("src/domain", (imported) => imported.startsWith("src/domain/"))).toEqual([]);
  });
});

describe("the homes of rules", () => {
  it("keeps every Cache-Control value in src/cache-policy.ts", () => {
    const value = /["'`](?:no-store|no-cache|public|private|(?:public|private), [^"'`]*|[^"'`]*max-age=[^"'`]*)["'`]/;
    const elsewhere = sources("src")
      .filter((file) => file !== join("src", "cache-policy.ts"))
      .flatMap((file) =>
        readFileSync(join(ROOT, file), "utf8")
          .split("\n")
          .map((line, i) => ({ file, line, at: i + 1 })),
      )
      .filter(({ line }) => value.test(line) && !line.trimStart().startsWith("//") && !line.trimStart().startsWith("*"));
    expect(elsewhere.map(({ file, at, line }) => `${file}:${at}: ${line.trim()}`)).toEqual([]);
  });
});
