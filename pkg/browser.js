// Browser entry: the web build, instantiated once on import.
import init, * as wasm from "./web/baton_wasm.js";
import { makeApi } from "./api.js";

await init();
export const { Baton, Workspace, BatonError, tools, hostInputs, schemas, runScript, memoryBytes, heapInUse } = makeApi(wasm);

/** The durable file store needs Node's file system; in a browser use `Workspace` (IndexedDB). */
export class FileStore {
  static open() {
    throw new Error("FileStore is for Node hosts; in a browser, use Workspace (IndexedDB)");
  }
}
