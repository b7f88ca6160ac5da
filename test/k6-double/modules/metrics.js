// TEST AID, not k6. k6/metrics double: records samples for the runner's summary. Like k6, metrics
// may only be created in the init context (module top level).
import { state } from "./state.js";

// k6's metric-name rule (metrics/registry.go).
const NAME = /^[a-zA-Z_][a-zA-Z0-9_]{1,128}$/;

class Metric {
  constructor(type, name, isTime = false) {
    const s = state();
    if (s.stage !== "init") throw new Error(`k6 double: metric ${name} created outside the init context`);
    if (!NAME.test(name)) throw new Error(`k6 double: invalid metric name ${JSON.stringify(name)}`);
    const known = s.metrics.get(name);
    if (known && known.type !== type) throw new Error(`k6 double: metric ${name} redeclared as ${type}`);
    if (known && known.isTime !== Boolean(isTime))
      throw new Error(`k6 double: metric ${name} redeclared with another value type`);
    s.metrics.set(name, { type, isTime: Boolean(isTime) });
    this.name = name;
    this.type = type;
    this.isTime = Boolean(isTime);
  }

  add(value, tags = {}) {
    const v = typeof value === "boolean" ? Number(value) : value;
    if (typeof v !== "number" || Number.isNaN(v))
      throw new Error(`k6 double: ${this.name}.add(${value}) is not a number`);
    state().samples.push({ metric: this.name, type: this.type, isTime: this.isTime, value: v, tags: { ...tags } });
    return true;
  }
}

export class Trend extends Metric {
  constructor(name, isTime) {
    super("trend", name, isTime);
  }
}
export class Counter extends Metric {
  constructor(name, isTime) {
    super("counter", name, isTime);
  }
}
export class Gauge extends Metric {
  constructor(name, isTime) {
    super("gauge", name, isTime);
  }
}
export class Rate extends Metric {
  constructor(name) {
    super("rate", name, false);
  }
}
