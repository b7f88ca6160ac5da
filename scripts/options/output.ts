// The summary outputs, shared by `bench` and `report`: --json on stdout, --summary-md FILE, and the
// GitHub Actions step summary ($GITHUB_STEP_SUMMARY) when it is set.
import type { OptionTable } from "./spec.js";

export const SUMMARY_OPTIONS = (group?: string) =>
  ({
    json: {
      type: "boolean",
      default: false,
      describe:
        "print a machine-readable summary (verdicts, headline figures, the guard's lines) on stdout instead of the Markdown",
      ...(group ? { group } : {}),
    },
    "summary-md": {
      type: "string",
      describe:
        "also write the summary block (conditions, command, headline tables, verdict sentences) to this file; with $GITHUB_STEP_SUMMARY set it is appended there too",
      ...(group ? { group } : {}),
    },
  }) as const satisfies OptionTable;
