// pidusage 4 ships no types (DefinitelyTyped's describe version 2): the part the sampler calls.
declare module "pidusage" {
  interface Status {
    /** CPU share since the last call (%). */
    cpu: number;
    /** Resident set size (bytes). */
    memory: number;
    /** CPU time used, user + system (ms). */
    ctime: number;
    /** Time since the process started (ms). */
    elapsed: number;
    timestamp: number;
    pid: number;
    ppid: number;
  }
  interface Options {
    /** Run `ps` (the method of macOS and the BSDs) also where /proc is there. */
    usePs?: boolean;
    /** How long a pid's previous reading is kept for the CPU share (ms); 0 keeps none. */
    maxage?: number;
  }
  function pidusage(pid: number, options?: Options): Promise<Status>;
  namespace pidusage {
    /** Forgets every pid's previous reading (and the file its Linux reader keeps open). */
    function clear(): void;
  }
  export default pidusage;
}
