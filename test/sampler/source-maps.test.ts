// Allocation sites of a bundled target are named by their original source: a script with a linked
// source map (esbuild's, as the bundled server has) maps a frame's line and column back to the .ts
// file and line; a script without one, and Node's own frames, keep what V8 reported.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { heapSites, type SamplingHeapProfile } from "../../scripts/sampler/heap-sites.js";
import { sourceMapResolver } from "../../scripts/sampler/source-maps.js";

const dir = mkdtempSync(join(tmpdir(), "source-maps-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A profile whose one allocating node sits at (line, column) of url, called from a mapless frame. */
function profileAt(url: string, line: number, column: number): SamplingHeapProfile {
  const leaf = {
    callFrame: { functionName: "encodeChunk", url, lineNumber: line - 1, columnNumber: column },
    selfSize: 4096,
    children: [],
  };
  const caller = {
    callFrame: { functionName: "send", url: "node:buffer", lineNumber: 769, columnNumber: 3 },
    selfSize: 0,
    children: [leaf],
  };
  return {
    head: { callFrame: { functionName: "(root)", url: "", lineNumber: -1 }, selfSize: 0, children: [caller] },
  };
}

describe("source maps for allocation sites", () => {
  it("maps a frame of an esbuild bundle to its .ts file and line, and leaves others as reported", async () => {
    const source = join(dir, "encode.ts");
    writeFileSync(
      source,
      [
        "// a module of the target",
        "export const pad = (n: number): string => ' '.repeat(n);",
        "",
        "export function encodeChunk(items: string[]): string {",
        "  const text: string = JSON.stringify(items); // line 5",
        "  return text;",
        "}",
        "",
      ].join("\n"),
    );
    const entry = join(dir, "main.ts");
    writeFileSync(entry, 'import { encodeChunk, pad } from "./encode.js";\nconsole.log(pad(2), encodeChunk(["a"]));\n');
    const bundle = join(dir, "bundle.js");
    await build({
      entryPoints: [entry],
      outfile: bundle,
      bundle: true,
      format: "esm",
      platform: "node",
      sourcemap: "linked",
      logLevel: "silent",
    });
    const lines = readFileSync(bundle, "utf8").split("\n");
    const at = lines.findIndex((l) => l.includes("JSON.stringify(items)"));
    expect(at).toBeGreaterThan(0);
    const column = (lines[at] as string).indexOf("JSON.stringify");

    const url = pathToFileURL(bundle).href;
    const { sites } = heapSites(profileAt(url, at + 1, column), sourceMapResolver());
    expect(sites[0]?.frame).toEqual({ functionName: "encodeChunk", url: pathToFileURL(source).href, line: 5 });
    // node:buffer has no map: kept as V8 reported it.
    expect(sites[0]?.caller).toEqual({ functionName: "send", url: "node:buffer", line: 770 });

    // Without a resolver, or for a script without a map, the reported position stays.
    expect(heapSites(profileAt(url, at + 1, column)).sites[0]?.frame.url).toBe(url);
    const plain = join(dir, "plain.js");
    writeFileSync(plain, "export const x = 1;\n");
    const unmapped = heapSites(profileAt(pathToFileURL(plain).href, 1, 0), sourceMapResolver()).sites[0]?.frame;
    expect(unmapped).toEqual({ functionName: "encodeChunk", url: pathToFileURL(plain).href, line: 1 });
  });
});
