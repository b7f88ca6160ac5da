// Allocation sites of a bundled target are named by their original source: a script with a linked
// source map (esbuild's, as the bundled server has) maps a frame's line and column back to the .ts
// file and line; a script without one, and Node's own frames, keep what V8 reported.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { heapSites, type SamplingHeapProfile } from "../../scripts/sampler/heap-sites.js";
import { sourceMapResolver } from "../../scripts/sampler/source-maps.js";
import { ROOT } from "../fixtures/cli.js";

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

describe("a foreign target's script urls (vm.Script names them as it likes)", () => {
  it("never opens a FIFO, never throws: a url or map that cannot be followed keeps the reported position", () => {
    const fifo = join(dir, "script-fifo.js");
    execFileSync("mkfifo", [fifo]);
    const mapFifo = join(dir, "map-fifo.js.map");
    execFileSync("mkfifo", [mapFifo]);
    const mapsToFifo = join(dir, "maps-to-fifo.js");
    writeFileSync(mapsToFifo, "export const x = 1;\n//# sourceMappingURL=map-fifo.js.map\n");
    const badEscape = join(dir, "bad-escape.js");
    writeFileSync(badEscape, "export const x = 1;\n//# sourceMappingURL=%E0%A4%A.map\n");
    const urls = [
      pathToFileURL(fifo).href,
      pathToFileURL(mapsToFifo).href,
      pathToFileURL(badEscape).href,
      "file://evil-host/x.js", // fileURLToPath: a host is not allowed on Linux
      "file:///a%2Fb.js", // fileURLToPath: an encoded "/"
    ];
    // In a child with a timeout: a resolver that opened the FIFO would block this process for ever.
    const module = pathToFileURL(join(ROOT, "dist/scripts/sampler/source-maps.js")).href;
    const code = `const { sourceMapResolver } = await import(${JSON.stringify(module)});
const r = sourceMapResolver();
const out = ${JSON.stringify(urls)}.map((url) => { try { return r({ url, line: 1, column: 0 }); } catch (e) { return "threw " + e.message; } });
console.log(JSON.stringify(out));`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
      timeout: 20_000,
      encoding: "utf8",
    });
    expect(child.signal, "the resolver blocked (killed after 20 s)").toBeNull();
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual(urls.map(() => null));
  });
});
