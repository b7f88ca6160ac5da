// TEST AID, not k6. k6/execution double: the few fields our scenarios read.
import { state } from "./state.js";

export default {
  get vu() {
    const s = state();
    return {
      idInTest: s.vu,
      idInInstance: s.vu,
      iterationInScenario: s.iterationInScenario,
      iterationInInstance: s.iterationInScenario,
    };
  },
  get scenario() {
    const s = state();
    return {
      name: s.scenario,
      iterationInTest: s.iterationInTest,
      iterationInInstance: s.iterationInTest,
      executor: "per-vu-iterations",
      // k6 numbers iterations across the whole test, also when runners split it by segment.
    };
  },
  get test() {
    return {
      abort(reason) {
        state().abort?.(reason);
      },
    };
  },
};
