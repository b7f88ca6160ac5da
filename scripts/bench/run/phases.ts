// The phases of a bench run, in the order they run: one per matrix. A new phase is a file beside
// these (a Phase over the RunContext) and one line here.

import { latencyPhase } from "../latency/latency-phase.js";
import { leakPhase } from "../leak/leak-phase.js";
import { attributionPhase } from "../memory/attribution-phase.js";
import { memoryPhase } from "../memory/memory-phase.js";
import { stormPhase } from "../storm/storm-phase.js";
import type { Phase } from "./run-context.js";

export const PHASES: readonly Phase[] = [latencyPhase, memoryPhase, attributionPhase, leakPhase, stormPhase];
