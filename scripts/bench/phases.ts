// The phases of a bench run, in the order they run: one per matrix. A new phase is a file beside
// these (a Phase over the RunContext) and one line here.
import { attributionPhase } from "./attribution-phase.js";
import { latencyPhase } from "./latency-phase.js";
import { leakPhase } from "./leak-phase.js";
import { memoryPhase } from "./memory-phase.js";
import type { Phase } from "./run-context.js";
import { stormPhase } from "./storm-phase.js";

export const PHASES: readonly Phase[] = [latencyPhase, memoryPhase, attributionPhase, leakPhase, stormPhase];
