// Pure parts of the clinic runner: clinic's command line, the ready line and the report path it prints.
import { describe, expect, it } from "vitest";
import { clinicArgs, clinicStopsServer, parseHtmlPath, shellQuote } from "../../scripts/clinic/tools.js";

describe("clinicArgs", () => {
  it("asks for no browser, a destination, the hold command on-port, and the loopback server", () => {
    const args = clinicArgs({
      clinicBin: "/n/clinic/bin.js",
      tool: "heapprofiler",
      dest: "/r/clinic/heapprofiler-data",
      holdScript: "/d/hold.js",
      controlPort: 4321,
      node: "/usr/bin/node",
      server: ["/usr/bin/node", "/d/main.js", "--db", "/tmp/x y/f.sqlite", "--delivery", "batched"],
    });
    expect(args).toEqual([
      "/n/clinic/bin.js",
      "heapprofiler",
      "--open=false",
      "--dest",
      "/r/clinic/heapprofiler-data",
      "--on-port",
      "/usr/bin/node /d/hold.js 4321",
      "--",
      "/usr/bin/node",
      "/d/main.js",
      "--db",
      "/tmp/x y/f.sqlite",
      "--delivery",
      "batched",
    ]);
  });
});

describe("shellQuote", () => {
  it("leaves plain words and quotes the rest, including single quotes", () => {
    expect(shellQuote("/usr/bin/node")).toBe("/usr/bin/node");
    expect(shellQuote("/a b/c")).toBe("'/a b/c'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote("$(rm -rf /)")).toBe("'$(rm -rf /)'");
  });
});

describe("parseHtmlPath", () => {
  it("finds the generated report's path, decoding the file URL", () => {
    expect(parseHtmlPath("Analysing data\nGenerated HTML file is file:///tmp/a%20b/123.clinic-doctor.html\n")).toBe(
      "/tmp/a b/123.clinic-doctor.html",
    );
    expect(parseHtmlPath("Analysing data\n")).toBeNull();
  });
});

describe("clinicStopsServer", () => {
  it("leaves only bubbleprof's server for the harness to stop", () => {
    expect(clinicStopsServer("doctor")).toBe(true);
    expect(clinicStopsServer("flame")).toBe(true);
    expect(clinicStopsServer("heapprofiler")).toBe(true);
    expect(clinicStopsServer("bubbleprof")).toBe(false);
  });
});
