// The out-of-process sampler and target discovery; re-exports only.
export {
  assertLoopbackWsUrl,
  type ConnectOptions,
  connectInspector,
  type FindInspectorOptions,
  findInspector,
  type HeapUsage,
  type InspectorClient,
  InspectorError,
  type InspectorTarget,
  inspectorUrlFromStderr,
  listInspectorTargets,
} from "./inspector.js";
export { distribution, intervalStats, intervalsOf } from "./interval-stats.js";
export { type LocatedTarget, locateTarget } from "./locate.js";
export {
  descendants,
  type FindListeningPidOptions,
  findListeningPid,
  isAlive,
  type ListeningSocket,
  listeningPidNow,
  listeningPorts,
  listeningSockets,
  ProcError,
  parseListeningSockets,
  readProcStatus,
  readVmHwm,
  readVmRss,
  resetVmHwm,
  socketInodes,
} from "./procfs.js";
export {
  postGcHeap,
  type Sample,
  type Sampler,
  type SamplerOptions,
  type SamplerSummary,
  startSampler,
} from "./sampler.js";
