// `baton-engine/host` in Node: the host driver over the Node build.
import { schemas } from "./node.js";
import { makeHost } from "./host.js";
export const Host = makeHost(schemas);
