// `baton-engine/host` in browsers: the host driver over the web build.
import { schemas } from "./browser.js";
import { makeHost } from "./host.js";
export const Host = makeHost(schemas);
