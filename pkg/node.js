// Node entry: the experimental-nodejs-module build, loaded synchronously.
import * as wasm from "./node/baton_wasm.js";
import { makeApi } from "./api.js";

export const { Baton, Workspace, BatonError, tools, hostInputs, schemas, runScript, memoryBytes, heapInUse } = makeApi(wasm);
export { FileStore } from "./file-store.js";
