// TEST AID, not k6. k6/execution double: the fields our scenarios read, per iteration (k6's
// internal/js/modules/k6/execution/execution.go: vu.idInTest is the VU's id in the whole test,
// scenario.iterationInTest the iteration's number in the whole test, both striped across the
// instances of a split run; see ../segments.js).
import { current, state } from "./state.js";

function ctx() {
  const c = current();
  if (!c) throw new Error("k6 double: k6/execution's vu and scenario are only available in an iteration");
  return c;
}

export default {
  get vu() {
    const c = ctx();
    return {
      idInTest: c.vu,
      idInInstance: c.vuInInstance,
      iterationInScenario: c.iterationInScenario,
      iterationInInstance: c.iterationInScenario,
    };
  },
  get scenario() {
    const c = ctx();
    return {
      name: c.scenario,
      executor: c.executor,
      iterationInTest: c.iterationInTest,
      iterationInInstance: c.iterationInInstance,
    };
  },
  // abort(): k6 interrupts the run with "test aborted[: reason]", exit 108 (grafana/k6 v2.2.0
  // internal/js/modules/k6/execution/execution.go:174-182, errext/interrupt_error.go:26,36,
  // errext/exitcodes/codes.go:50); the runner's state().abort does that.
  get test() {
    return {
      abort(reason) {
        state().abort?.(reason);
      },
    };
  },
};
