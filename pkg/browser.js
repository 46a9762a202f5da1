// Browser entry: the web build, instantiated once on import.
import init, * as wasm from "./web/baton_wasm.js";
import { makeApi } from "./api.js";

await init();
export const { Baton, Workspace, BatonError, tools, runScript } = makeApi(wasm);
