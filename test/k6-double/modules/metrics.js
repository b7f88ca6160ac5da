// TEST AID, not k6. k6/metrics double: records samples for the runner's summary. As k6 (grafana/k6
// v2.2.0 internal/js/modules/k6/metrics/metrics.go):
// - a metric is created only in the init context, not in setup() or an iteration (:29-32, "metrics
//   must be declared in the init context");
// - add() in the init context throws (:25-26, 77-81);
// - add() converts its value as JS ToNumber does ("5" is 5), a falsy 0 from a truthy value counts 1,
//   NaN or null is warned about and dropped (thrown with options.throw) (:83-112).
import process from "node:process";
import { inInit, state } from "./state.js";

// k6's metric-name rule (metrics/registry.go).
const NAME = /^[a-zA-Z_][a-zA-Z0-9_]{1,128}$/;

class Metric {
  constructor(type, name, isTime = false) {
    const s = state();
    if (!inInit()) throw new Error(`metrics must be declared in the init context (metric ${name})`);
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
    if (inInit()) throw new Error("Adding to metrics in the init context is not supported");
    let v = value === null ? Number.NaN : Number(value);
    if (v === 0 && value) v = 1;
    if (Number.isNaN(v)) return this._invalid(value);
    state().samples.push({ metric: this.name, type: this.type, isTime: this.isTime, value: v, tags: { ...tags } });
    return true;
  }

  /** k6 warns and drops the sample, or throws when options.throw is set (metrics.go:86-97). */
  _invalid(value) {
    const text = `'${String(value)}' is an invalid value for metric '${this.name}', a number or a boolean value is expected`;
    if (state().options.throw === true) throw new Error(text);
    process.stderr.write(`k6 double: WARN ${text}\n`);
    return false;
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
