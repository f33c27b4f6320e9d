// The layers hold, as docs/architecture.md draws them: the commands on top, then the
// composition root, the gateway, the read services and the write model (apart from
// each other), the call pipeline, and at the bottom the store (plain records in and
// out) and domain/ (pure vocabulary and arithmetic: no I/O, no packages). Read from the
// sources' own import statements.
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

const isPackage = (imported: string) => !imported.startsWith("src/") && !imported.startsWith("gen/") && !imported.startsWith("test/");

/** Whether a module is in one of these folders of src/. */
const under = (imported: string, ...folders: string[]) => folders.some((folder) => imported.startsWith(`src/${folder}/`));

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
    for (const folder of ["commands", "composition", "calls", "reads", "ingest", "setup", "caching", "messages"]) {
      expect(sources(`src/${folder}`).length).toBeGreaterThan(0);
    }
  });

  it("keeps the store at the bottom: it imports only the store, domain/ and packages", () => {
    const ownLayer = (imported: string) => imported.startsWith("src/store/") || imported.startsWith("src/domain/");
    expect(violations("src/store", (imported) => ownLayer(imported) || isPackage(imported))).toEqual([]);
  });

  it("keeps domain/ pure: it imports only domain/, no Node module and no package", () => {
    expect(violations("src/domain", (imported) => imported.startsWith("src/domain/"))).toEqual([]);
  });

  it("keeps local set-up (setup/) beside the store: it brings a server up, and imports only itself, the store and packages", () => {
    expect(violations("src/setup", (imported) => under(imported, "setup", "store") || isPackage(imported))).toEqual([]);
  });

  it("lets only the commands reach the composition root, and nothing reach the commands", () => {
    const outside = sources("src").filter(
      (file) => !file.startsWith(join("src", "commands")) && !file.startsWith(join("src", "composition")),
    );
    const reaching = outside.flatMap((file) =>
      importsOf(file)
        .filter((imported) => under(imported, "commands", "composition"))
        .map((imported) => `${file} -> ${imported}`),
    );
    expect(reaching).toEqual([]);
    expect(violations("src/composition", (imported) => !under(imported, "commands"))).toEqual([]);
  });

  it("keeps the call pipeline (calls/) under the services: it knows no read, no write and no gateway", () => {
    expect(violations("src/calls", (imported) => !under(imported, "reads", "ingest", "gateway"))).toEqual([]);
  });

  it("keeps the read services and the write model apart, and both under the gateway", () => {
    expect(violations("src/reads", (imported) => !under(imported, "ingest", "gateway"))).toEqual([]);
    expect(violations("src/ingest", (imported) => !under(imported, "reads", "gateway"))).toEqual([]);
  });

  it("keeps insights (insights/) under the read services: the analytics' passings are handed in, never imported", () => {
    expect(sources("src/insights").length).toBeGreaterThan(3);
    expect(violations("src/insights", (imported) => !under(imported, "reads", "ingest", "gateway", "calls"))).toEqual([]);
  });

  it("keeps the gateway a translator: it calls the services, never the store or a service's module", () => {
    expect(violations("src/gateway", (imported) => !under(imported, "store", "reads", "ingest"))).toEqual([]);
  });

  it("keeps errors/ and telemetry/ below the gateway: they import nothing of it", () => {
    expect(violations("src/errors", (imported) => !under(imported, "gateway", "calls", "limits"))).toEqual([]);
    expect(violations("src/telemetry", (imported) => !under(imported, "gateway", "calls"))).toEqual([]);
  });
});

describe("the homes of rules", () => {
  it("keeps every Cache-Control value in src/caching/cache-policy.ts", () => {
    const value = /["'`](?:no-store|no-cache|public|private|(?:public|private), [^"'`]*|[^"'`]*max-age=[^"'`]*)["'`]/;
    const elsewhere = sources("src")
      .filter((file) => file !== join("src", "caching", "cache-policy.ts"))
      .flatMap((file) =>
        readFileSync(join(ROOT, file), "utf8")
          .split("\n")
          .map((line, i) => ({ file, line, at: i + 1 })),
      )
      .filter(({ line }) => value.test(line) && !line.trimStart().startsWith("//") && !line.trimStart().startsWith("*"));
    expect(elsewhere.map(({ file, at, line }) => `${file}:${at}: ${line.trim()}`)).toEqual([]);
  });
});
